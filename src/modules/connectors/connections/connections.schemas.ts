import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, NullableDateTime, PageQuery, Paged } from '../../../schemas.js'

export const Connection = Type.Object({
  id: Type.String({ description: 'The grant id; also the connection\'s rate-limit budget and audit actor (`oauth:<id>`)' }),
  client: Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
  person: Type.Object({ id: Type.String(), email: Type.Union([Type.String(), Type.Null()]) }),
  role: Type.String(),
  scopes: Type.Array(Type.String()),
  storeIds: Type.Array(Type.String()),
  createdAt: DateTime,
  lastUsedAt: NullableDateTime
})

export const listConnections = {
  tags: ['connectors'],
  summary: 'List the organization\'s live OAuth connections (grants)',
  querystring: Type.Object(PageQuery),
  response: { 200: Paged(Connection), ...authErrors }
}

export const revokeConnection = {
  tags: ['connectors'],
  summary: 'Revoke a connection and every token of it at once; revoking again answers 204 too',
  params: IdParams,
  response: { 204: Type.Null(), ...authErrors }
}

export const OauthClient = Type.Object({
  id: Type.String(),
  name: Type.String(),
  redirectUris: Type.Array(Type.String()),
  public: Type.Boolean({ description: 'Public clients have no secret and must use PKCE' }),
  registeredBy: Type.Union([Type.Literal('organization'), Type.Literal('operator')], {
    description: '`operator`: registered with the CLI for every organization; only the operator changes it'
  }),
  createdAt: DateTime
})

export const listClients = {
  tags: ['connectors'],
  summary: 'List the OAuth clients this organization may authorize: its own and the operator\'s',
  querystring: Type.Object(PageQuery),
  response: { 200: Paged(OauthClient), ...authErrors }
}

export const createClient = {
  tags: ['connectors'],
  summary: 'Register an OAuth client; the secret is in this response only',
  body: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    redirectUris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
      minItems: 1,
      maxItems: 10,
      description: 'Matched exactly; https (http only for loopback), one host (no wildcard), no user name or password'
    }),
    public: Type.Optional(Type.Boolean({ description: 'A public (PKCE-only) client gets no secret' }))
  }, { additionalProperties: false, examples: [{ name: 'Make', redirectUris: ['https://www.make.com/oauth/cb/oauth2'] }] }),
  response: {
    201: Type.Object({
      ...OauthClient.properties,
      clientId: Type.String(),
      clientSecret: Type.Union([Type.String(), Type.Null()], { description: 'Shown once; null for a public client' })
    }),
    ...authErrors
  }
}

export { IdParams }
