import type { FastifyInstance } from 'fastify'
import { base62 } from '../src/lib/ids.js'
import type { Plan, SubscriptionStatus } from '../src/types.js'
import type { Role } from '../src/lib/permissions.js'

export interface Tenant {
  orgId: string
  storeId: string
  owner: { id: string, email: string, password: string }
  /** An unrestricted admin key. */
  key: string
}

/** A fresh organization with an owner, one store and an admin key: tests never share tenants. */
export async function makeTenant (
  app: FastifyInstance,
  options: { plan?: Plan, status?: SubscriptionStatus, origins?: string[] } = {}
): Promise<Tenant> {
  const bootstrap = app.services.bootstrap
  const out = await bootstrap.bootstrap({
    org: `Org ${base62(6)}`,
    store: 'Main store',
    owner: `owner-${base62(10).toLowerCase()}@example.test`,
    plan: options.plan ?? 'growth',
    origins: options.origins ?? ['https://shop.example']
  })
  if (options.status) await bootstrap.setPlan({ store: out.store.id, plan: options.plan ?? 'growth', status: options.status })
  return {
    orgId: out.organization.id,
    storeId: out.store.id,
    owner: { ...out.owner, password: out.owner.password! },
    key: out.apiKey.secret
  }
}

export async function makeStore (app: FastifyInstance, tenant: Tenant, options: { plan?: Plan, origins?: string[] } = {}): Promise<string> {
  const { store } = await app.services.bootstrap.createStore({
    org: tenant.orgId,
    name: `Store ${base62(4)}`,
    plan: options.plan ?? 'growth',
    origins: options.origins
  })
  return store.id
}

/** A key made directly (not through the API), for setting up a test's actors. */
export async function makeKey (
  app: FastifyInstance,
  tenant: Tenant,
  role: Exclude<Role, 'owner'>,
  scopes: string[] = [],
  expiresAt?: string
): Promise<{ id: string, secret: string }> {
  const key = await app.services.apiKeys.create({ type: 'cli', orgId: tenant.orgId, role, scopes }, {
    name: `${role} key`,
    role,
    scopes,
    expiresAt
  }, null)
  return { id: key.id, secret: key.secret }
}

export async function addMember (app: FastifyInstance, tenant: Tenant, role: 'owner' | 'admin' | 'editor') {
  const { person } = await app.services.bootstrap.addMember(tenant.orgId, `${role}-${base62(10).toLowerCase()}@example.test`, role)
  return { id: person.id, email: person.email, password: person.password! }
}

/**
 * A request as a signed-in person (the credential the admin application acts with), e.g. the owner, whom no API
 * key can be: handed to the pipeline as it is, so role, scopes, plan and subscription apply as for any credential.
 */
export function asPerson (
  app: FastifyInstance,
  tenant: Tenant,
  person: { id: string, role?: Role },
  options: { method: string, url: string, store?: string, payload?: unknown, type?: 'person' | 'oauth' }
) {
  const credential = {
    type: options.type ?? 'person',
    id: person.id,
    orgId: tenant.orgId,
    role: person.role ?? 'owner',
    scopes: [],
    personId: person.id,
    storeIds: null
  } as const
  return app.injectAs({ ...credential, scopes: [] }, {
    method: options.method as 'GET',
    url: options.url,
    headers: { 'x-store-env-id': options.store ?? tenant.storeId },
    ...(options.payload === undefined ? {} : { payload: options.payload as Record<string, unknown> })
  })
}
