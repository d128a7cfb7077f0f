import type { Knex } from 'knex'
import { newId } from '../../lib/ids.js'
import { originKey } from '../../lib/origins.js'

import { PLANS, SUBSCRIPTION_STATUSES, type Plan, type StoreEnv, type SubscriptionStatus } from '../../types.js'

// Kept where they were first defined, for code written against this file.
export { PLANS, SUBSCRIPTION_STATUSES, type Plan, type StoreEnv, type SubscriptionStatus }

interface Row {
  id: string
  org_id: string
  name: string
  plan: Plan
  subscription_status: SubscriptionStatus
  current_period_end: number | null
  allowed_origins: string
  created_at: number
}

function toStore (row: Row): StoreEnv {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    plan: row.plan,
    subscriptionStatus: row.subscription_status,
    currentPeriodEnd: row.current_period_end == null ? null : Number(row.current_period_end),
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    createdAt: Number(row.created_at)
  }
}

/** The keys a CORS preflight looks a store up by (migrations/20261128010000_store_origins.ts). */
async function insertOriginKeys (trx: Knex, storeId: string, origins: readonly string[]) {
  const keys = [...new Set(origins.map(originKey))]
  if (keys.length) await trx('store_origins').insert(keys.map((origin) => ({ origin, store_env_id: storeId })))
}

export function storesRepository (db: Knex) {
  return {
    async find (id: string): Promise<StoreEnv | null> {
      const row = await db<Row>('store_envs').where({ id }).first()
      return row ? toStore(row) : null
    },

    async listForOrg (orgId: string, ids?: string[] | null): Promise<StoreEnv[]> {
      const query = db<Row>('store_envs').where({ org_id: orgId }).orderBy('created_at').orderBy('id')
      if (ids) query.whereIn('id', ids)
      return (await query).map(toStore)
    },

    async create (
      input: {
        orgId: string
        name: string
        plan: Plan
        status?: SubscriptionStatus
        allowedOrigins?: string[]
        now: number
        periodDays?: number
      },
      trx: Knex = db
    ): Promise<StoreEnv> {
      const row: Row = {
        id: newId('env'),
        org_id: input.orgId,
        name: input.name,
        plan: input.plan,
        subscription_status: input.status ?? 'active',
        current_period_end: input.now + (input.periodDays ?? 30) * 86_400_000,
        allowed_origins: JSON.stringify(input.allowedOrigins ?? []),
        created_at: input.now
      }
      await trx.transaction(async (inner) => {
        await inner('store_envs').insert(row)
        await insertOriginKeys(inner, row.id, input.allowedOrigins ?? [])
      })
      return toStore(row)
    },

    async setPlan (id: string, plan: Plan, status?: SubscriptionStatus): Promise<StoreEnv | null> {
      await db('store_envs').where({ id }).update({ plan, ...(status ? { subscription_status: status } : {}) })
      return this.find(id)
    },

    /** Call inside a transaction: the list and its keys (store_origins) change together. */
    async setAllowedOrigins (id: string, origins: string[], trx: Knex): Promise<void> {
      await trx('store_envs').where({ id }).update({ allowed_origins: JSON.stringify(origins) })
      await trx('store_origins').where({ store_env_id: id }).delete()
      await insertOriginKeys(trx, id, origins)
    }
  }
}
export type StoresRepository = ReturnType<typeof storesRepository>
