import type { Knex } from 'knex'
import { lockForWrite, rowsByKeys } from '../../lib/bulk.js'
import { countAndPage } from '../../lib/pagination.js'

export interface CustomerRow {
  id: string
  org_id: string
  store_env_id: string
  platform_customer_id: string | null
  email: string | null
  email_key: string | null
  first_name: string | null
  last_name: string | null
  phone: string | null
  birthday_month: number | null
  birthday_day: number | null
  birthday_year: number | null
  erased_at: number | null
  created_at: number
  updated_at: number
}

/** The columns an upsert replaces (everything the client owns, plus updated_at). */
export const CUSTOMER_FIELDS = [
  'email',
  'email_key',
  'first_name',
  'last_name',
  'phone',
  'birthday_month',
  'birthday_day',
  'birthday_year'
] as const

/** How addresses are matched (orders, reviews, referrals): trimmed and lower-cased, as reviews compare them. */
export function emailKey (email: string | null | undefined): string | null {
  const key = email?.trim().toLowerCase()
  return key || null
}

export interface CustomerRef { platformCustomerId?: string | null, email?: string | null }

export function customersRepository (db: Knex) {
  const live = (trx: Knex, storeId: string) => trx<CustomerRow>('customers').where({ store_env_id: storeId }).whereNull('erased_at')
  /** `live`, for a list of keys, through the key's index (lib/bulk.ts rowsByKeys). */
  const liveByKeys = (trx: Knex, storeId: string, key: 'platform_customer_id' | 'email_key', keys: string[]) =>
    rowsByKeys<CustomerRow>(trx, 'customers', storeId, key, keys, key === 'email_key' ? 'index' : 'unique').whereNull('erased_at')

  return {
    /** `lock`: a bulk upsert's read of the rows it is about to write (lib/bulk.ts). */
    async findByKeys (storeId: string, keys: string[], trx: Knex = db, lock = false): Promise<Map<string, CustomerRow>> {
      const rows = keys.length ? await lockForWrite(liveByKeys(trx, storeId, 'platform_customer_id', keys), lock) : []
      return new Map(rows.map((row) => [row.platform_customer_id!, row]))
    },

    async upsert (rows: CustomerRow[], trx: Knex) {
      if (rows.length === 0) return
      await trx('customers').insert(rows).onConflict(['store_env_id', 'platform_customer_id']).merge([...CUSTOMER_FIELDS, 'updated_at'])
    },

    async rename (storeId: string, id: string, names: Pick<CustomerRow, 'first_name' | 'last_name' | 'updated_at'>, trx: Knex) {
      await trx('customers').where({ store_env_id: storeId, id }).update({
        first_name: names.first_name,
        last_name: names.last_name,
        updated_at: names.updated_at
      })
    },

    find (storeId: string, id: string, trx: Knex = db, lock = false): Promise<CustomerRow | undefined> {
      return lockForWrite(live(trx, storeId).where({ id }), lock).first()
    },

    async list (storeId: string, filter: { updatedSince?: number | null, email?: string }, page: { offset: number, limit: number }) {
      const base = live(db, storeId)
      if (filter.updatedSince != null) base.where('updated_at', '>=', filter.updatedSince)
      if (filter.email !== undefined) base.where({ email_key: emailKey(filter.email) })
      return countAndPage<CustomerRow>(base, page, (q) => q.orderBy('updated_at').orderBy('id'))
    },

    /**
     * The customer each reference names: by platform id first, then by address (the oldest customer with it).
     * Answers the customer id per reference index; null where none matches.
     */
    async resolve (storeId: string, refs: CustomerRef[], trx: Knex = db): Promise<Array<string | null>> {
      const ids = [...new Set(refs.map((r) => r.platformCustomerId).filter((v): v is string => Boolean(v)))]
      const keys = [...new Set(refs.map((r) => emailKey(r.email)).filter((v): v is string => v !== null))]
      const byPlatform = new Map<string, string>()
      const byEmail = new Map<string, string>()
      if (ids.length) {
        for (const row of await liveByKeys(trx, storeId, 'platform_customer_id', ids).select('id', 'platform_customer_id')) {
          byPlatform.set(row.platform_customer_id!, row.id)
        }
      }
      if (keys.length) {
        const rows = await liveByKeys(trx, storeId, 'email_key', keys).orderBy('created_at').orderBy('id').select('id', 'email_key')
        for (const row of rows) if (!byEmail.has(row.email_key!)) byEmail.set(row.email_key!, row.id)
      }
      return refs.map((r) => (r.platformCustomerId && byPlatform.get(r.platformCustomerId)) || byEmail.get(emailKey(r.email) ?? '') || null)
    },

    byEmailKey (storeId: string, key: string, trx: Knex = db, lock = false): Promise<CustomerRow | undefined> {
      return lockForWrite(live(trx, storeId).where({ email_key: key }).orderBy('created_at').orderBy('id'), lock).first()
    },

    /** Customers made from gallery leads (no platform id) with these addresses, oldest first per address, locked. */
    async fromLeads (storeId: string, keys: string[], trx: Knex): Promise<Map<string, CustomerRow>> {
      const rows: CustomerRow[] = keys.length
        ? await lockForWrite(
          liveByKeys(trx, storeId, 'email_key', keys).whereNull('platform_customer_id').orderBy('created_at').orderBy('id'),
          true
        )
        : []
      const byKey = new Map<string, CustomerRow>()
      for (const row of rows) if (!byKey.has(row.email_key!)) byKey.set(row.email_key!, row)
      return byKey
    },

    /** A lead's customer taken over by the platform's sync: its platform id and every synced field. */
    async adopt (row: CustomerRow, trx: Knex) {
      const fields = Object.fromEntries(CUSTOMER_FIELDS.map((field) => [field, row[field]]))
      await trx('customers').where({ store_env_id: row.store_env_id, id: row.id }).update({
        ...fields,
        platform_customer_id: row.platform_customer_id,
        updated_at: row.updated_at
      })
    },

    async erase (storeId: string, id: string, now: number, trx: Knex) {
      await trx('customers').where({ store_env_id: storeId, id }).update({
        platform_customer_id: null,
        email: null,
        email_key: null,
        first_name: null,
        last_name: null,
        phone: null,
        birthday_month: null,
        birthday_day: null,
        birthday_year: null,
        erased_at: now,
        updated_at: now
      })
    }
  }
}
export type CustomersRepository = ReturnType<typeof customersRepository>
