import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, PageQuery, Paged } from '../../schemas.js'

const OrgId = Type.String({ minLength: 1, maxLength: 40, description: 'An organization id (`org_…`)' })

/** Both partner lists: a page, or with `updatedSince` the grants made or changed since (routes `paged`). */
const GrantsSince = Type.Object({
  ...PageQuery,
  updatedSince: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only grants made or changed at or after this instant, oldest change first' })
  )
})

export const PartnerGrant = Type.Object({
  partnerOrgId: Type.String(),
  partnerOrgName: Type.String(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer')]),
  createdAt: DateTime,
  updatedAt: DateTime
})

const accessDoc = 'The partner\'s people (through the admin application or an OAuth connection they make, never through the ' +
  'partner\'s API keys) then work on every store of this organization with the lesser of their own role and this one; ' +
  'every request they make there is recorded in this organization\'s audit log as `partner.request`, naming the partner.'

export const grantPartner = {
  tags: ['orgs'],
  summary: 'Grant a partner (agency) organization a role on this organization\'s stores (owner)',
  description:
    `${accessDoc} Granting again changes the role: 201 when the grant is new, 200 when it existed. A role above admin is refused (400).`,
  body: Type.Object({
    partnerOrgId: OrgId,
    role: Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer')], { description: 'At most admin' })
  }, { additionalProperties: false, examples: [{ partnerOrgId: 'org_8Hs2kQp0xYb4LmN7tRw1', role: 'editor' }] }),
  response: { 200: PartnerGrant, 201: PartnerGrant, ...authErrors }
}

export const listPartners = {
  tags: ['orgs'],
  summary: 'The partner organizations this organization has granted access',
  querystring: GrantsSince,
  response: { 200: Paged(PartnerGrant), ...authErrors }
}

export const revokePartner = {
  tags: ['orgs'],
  summary: 'Revoke a partner\'s access (owner); its people are refused from their next request',
  params: Type.Object({ partnerOrgId: OrgId }),
  response: { 204: Type.Null(), ...authErrors }
}

export const Client = Type.Object({
  orgId: Type.String(),
  name: Type.String(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer')], {
    description: 'The role the client granted; a person acts with the lesser of it and their own'
  }),
  grantedAt: DateTime,
  updatedAt: Type.String({ format: 'date-time', description: 'When the client last granted or changed the role' }),
  stores: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), {
    description: 'Send one of these ids as x-store-env-id to act on it'
  })
})

export const listClients = {
  tags: ['partner'],
  summary: 'The client organizations that granted this organization partner access, with their stores',
  querystring: GrantsSince,
  response: { 200: Paged(Client), ...authErrors }
}
