import type { FastifyInstance, InjectOptions } from 'fastify'
import type { Tenant } from '../factories.js'
import type { Credential } from '../../src/types.js'
import type { Role } from '../../src/lib/permissions.js'

/** A person acting as the admin application acts for them: their membership role, every store of the organization. */
export function person (orgId: string, personId: string, role: Role): Credential {
  return { type: 'person', id: personId, orgId, role, scopes: [], personId, storeIds: null }
}
export const owner = (tenant: Tenant) => person(tenant.orgId, tenant.owner.id, 'owner')

export function as (app: FastifyInstance, credential: Credential, method: string, url: string, store?: string, payload?: unknown) {
  return app.injectAs(credential, {
    method: method as InjectOptions['method'],
    url: `/v1${url}`,
    headers: store ? { 'x-store-env-id': store } : {},
    payload: payload as InjectOptions['payload']
  })
}
