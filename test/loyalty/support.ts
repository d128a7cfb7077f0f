import type { FastifyInstance } from 'fastify'
import { call } from '../helper.js'
import { makeKey, type Tenant } from '../factories.js'
import type { StoreEnv } from '../../src/types.js'

export type As = Pick<Tenant, 'key' | 'storeId'>

/** Customers made through the service (no request budget spent): their ids by platform id. */
export async function makeCustomers (
  app: FastifyInstance,
  storeId: string,
  items: Array<Record<string, unknown>>
): Promise<Record<string, string>> {
  const store = (await app.services.stores.find(storeId)) as StoreEnv
  await app.services.customers.upsert(store, items)
  const rows: Array<{ id: string, platform_customer_id: string }> = await app.db('customers').where({ store_env_id: storeId }).select(
    'id',
    'platform_customer_id'
  )
  return Object.fromEntries(rows.map((r) => [r.platform_customer_id, r.id]))
}

export async function setSettings (app: FastifyInstance, storeId: string, settings: Record<string, unknown>) {
  const store = (await app.services.stores.find(storeId)) as StoreEnv
  return app.services.loyalty.putSettings(store, {
    pointsPerUnit: 0,
    birthdayReward: { points: 0 },
    referralReward: { referrerPoints: 0, refereePoints: 0 },
    ...settings
  })
}

/** A fresh admin key: each has its own per-second budget, so a test sending many requests spreads them. */
export async function freshKey (app: FastifyInstance, tenant: Tenant): Promise<As> {
  return { key: (await makeKey(app, tenant, 'admin')).secret, storeId: tenant.storeId }
}

export const transact = (app: FastifyInstance, as: As, customerId: string, payload: Record<string, unknown>) =>
  call(app, { method: 'POST', url: `/v1/loyalty/accounts/${customerId}/transactions`, key: as.key, store: as.storeId, payload })

export const account = async (app: FastifyInstance, as: As, customerId: string) =>
  (await call(app, { method: 'GET', url: `/v1/loyalty/accounts/${customerId}`, key: as.key, store: as.storeId })).json()
