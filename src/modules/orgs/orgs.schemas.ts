import { Type } from '@sinclair/typebox'
import { authErrors, DateTime } from '../../schemas.js'

export const Organization = Type.Object({
  id: Type.String(),
  name: Type.String(),
  owners: Type.Array(Type.Object({ id: Type.String(), email: Type.String() })),
  createdAt: DateTime
})

export const getCurrent = {
  tags: ['orgs'],
  summary: 'The organization of the credential, with its owners',
  response: { 200: Organization, ...authErrors }
}

export const renameCurrent = {
  tags: ['orgs'],
  summary: 'Rename the organization (owner only)',
  description: 'Leading and trailing spaces are dropped; a blank name is refused. Audited as `org.renamed`.',
  body: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 200 })
  }, { additionalProperties: false, examples: [{ name: 'Northwind Outfitters' }] }),
  response: { 200: Organization, ...authErrors }
}

export const transferOwnership = {
  tags: ['orgs'],
  summary: 'Hand ownership to an admin of the organization (owner only); the caller becomes an admin',
  description: 'The person must already be a member with the admin role (else 409 `conflict`; not a member: 404 ' +
    '`not_found`; yourself: 400). Audited as `org.ownership_transferred`; both people\'s sessions and tokens carry ' +
    'their new roles from their next request. Not available to OAuth access tokens (`credential_not_allowed`).',
  body: Type.Object({
    personId: Type.String({ minLength: 1, maxLength: 40 })
  }, { additionalProperties: false, examples: [{ personId: 'usr_4kQ9xT1mZb7sW2aB3cD4' }] }),
  response: { 200: Organization, ...authErrors, 409: authErrors[400] }
}
