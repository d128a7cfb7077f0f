import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { credentialSecurity, documentedSchema, IDEMPOTENT_MARK, PROBLEM_SCHEMA, STORE_SCHEME } from './openapi-operations.js'
import { documentForSwaggerUi } from './openapi-ui.js'

type Operation = Record<string, unknown> & { parameters?: unknown[] }

/** The Idempotency-Key header, declared once and referred to by every operation that takes it. */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes a retry safe: within 24 hours, the same key with the same request (method, path and query, store, ' +
    'body) answers the first answer again, status and body, with `Idempotent-Replayed: true`, without doing the work ' +
    'twice; the key with another request is 400 `idempotency_key_reused`, a repeat while the first still runs 409 ' +
    '`idempotency_key_in_progress`. A 5xx is not kept. Use a new random value (a UUID) per operation.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  example: '3f1c2a9e-8d4b-4c1e-9a7f-2b6d0e5c8a41'
}

/** Each operation marked by documentedSchema gets the shared parameter instead of its mark. */
function withIdempotencyKey (document: Record<string, unknown>) {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      if (!operation || typeof operation !== 'object' || !(IDEMPOTENT_MARK in operation)) continue
      delete operation[IDEMPOTENT_MARK]
      operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }]
    }
  }
  const components = (document.components ?? {}) as Record<string, Record<string, unknown>>
  document.components = { ...components, parameters: { ...components.parameters, IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER } }
  return document
}

/** The OpenAPI 3.1 document is generated from the route schemas; nothing is written by hand twice. */
export default fp(async (app) => {
  const oauth = `${app.config.publicUrl}/oauth`
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Evidence Hub API',
        version: 'v1',
        description: 'Reviews, products, orders and store evidence for online stores. Every call acts on one store ' +
          'environment (`x-store-env-id`). Errors are `{ message, code, requestId }` (RFC 9457 problem details with ' +
          '`Accept: application/problem+json`); branch on `code`. A method a path does not answer is 405 `method_not_allowed` ' +
          'with `Allow`. Rate limits: 10/s, 50/10 s ' +
          'and 200/min per credential, reported in `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.'
      },
      servers: [{ url: app.config.publicUrl }],
      components: {
        schemas: { Problem: PROBLEM_SCHEMA },
        securitySchemes: {
          // First, so that /docs's Authorize dialog shows it first: every store-scoped call needs it with a credential.
          [STORE_SCHEME]: {
            type: 'apiKey',
            in: 'header',
            name: 'x-store-env-id',
            description: 'The store environment (`env_…`) a store-scoped operation acts on, required with the credential ' +
              '(GET /v1/account/stores lists those in reach). Not a secret; it names the store.'
          },
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`svc_…`) or an OAuth access token' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key (`svc_…`)' },
          oauth2: {
            type: 'oauth2',
            description:
              `OAuth 2.0 with PKCE (S256) from the provider at ${oauth}; the token carries the role, scopes and stores the person chose`,
            flows: {
              authorizationCode: {
                authorizationUrl: `${oauth}/auth`,
                tokenUrl: `${oauth}/token`,
                refreshUrl: `${oauth}/token`,
                scopes: { openid: 'Who connected', offline_access: 'A refresh token, to stay connected' }
              }
            }
          }
        }
      },
      security: credentialSecurity(false)
    },
    hideUntagged: true,
    // Each operation's store header, security and error codes come from the same route config the pipeline reads.
    transform: ({ schema, url, route }) => ({
      schema: documentedSchema({ method: route.method, url: route.url, schema: schema as never, config: route.config }) as never,
      url
    }),
    transformObject: (input) => withIdempotencyKey(('openapiObject' in input ? input.openapiObject : input.swaggerObject) as never) as never
  })
  // /docs loads its own copy of the document, in OpenAPI 3.0 (openapi-ui.ts), converted once. It opens on the list
  // of tags, each opening its operations on a click: drawing all 170 operations at once took most of its first
  // 2.5 s of CPU; the tags take half that. Deep links (#/reviews/listReviews) still open their operation.
  let forUi: Record<string, unknown> | undefined
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'none', deepLinking: true },
    transformSpecificationClone: false,
    transformSpecification: (doc) => (forUi ??= documentForSwaggerUi(doc))
  })
  app.get('/v1/openapi.json', { config: { auth: 'public' } }, async () => app.swagger())
}, { name: 'openapi', dependencies: ['config'] })
