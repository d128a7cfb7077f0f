import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { applyBulk, itemChecker, withDeadlockRetry, type CheckedItems } from '../../lib/bulk.js'
import { parseDateTime } from '../../lib/formats.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { EventLog } from '../events/events.repository.js'
import type { AuditRepository } from '../audit/audit.repository.js'
import { actorOf, type Credential, type StoreEnv } from '../../types.js'
import { CUSTOMER_FIELDS, emailKey, type CustomerRow, type CustomersRepository } from './customers.repository.js'
import { CustomerItem } from './customers.schemas.js'
import { eraseCustomerData, scrubEvents, type ErasureStep } from './erasure.js'

export const MAX_BATCH = 250

interface Deps {
  db: Knex
  repo: CustomersRepository
  events: EventLog
  audit: AuditRepository
  clock: Clock
  /** Further steps of an erasure (leads, the suppression list, loyalty), run in its transaction after the built-in ones. */
  erasure: ErasureStep[]
}

type Item = typeof CustomerItem.static

export function presentCustomer (row: CustomerRow) {
  return {
    id: row.id,
    platformCustomerId: row.platform_customer_id!,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    phone: row.phone,
    birthday: row.birthday_month == null
      ? null
      : { month: Number(row.birthday_month), day: Number(row.birthday_day), year: row.birthday_year == null ? null : Number(row.birthday_year) },
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

/** A real calendar day: 31 April never, 29 February only in a leap year or without a year. */
export function isCalendarDay (month: number, day: number, year?: number | null): boolean {
  const probe = new Date(Date.UTC(year ?? 2000, month - 1, day))
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day
}

const checkShape = itemChecker(CustomerItem, 'platformCustomerId')

/** The schema's checks, then the one it cannot express (the birthday is a day that exists). */
function checkCustomers (items: unknown[]): CheckedItems<Item> {
  const checked = checkShape(items)
  const valid = checked.valid.filter(({ index, item }) => {
    const b = item.birthday
    if (!b || isCalendarDay(b.month, b.day, b.year)) return true
    checked.errors.push({ index, platformId: item.platformCustomerId, code: 'invalid_item', message: `birthday: ${b.month}/${b.day}${b.year ? `/${b.year}` : ''} is not a day of the calendar` })
    return false
  })
  return { valid, errors: checked.errors }
}

export function customersService ({ db, repo, events, audit, clock, erasure }: Deps) {
  function toRow (store: StoreEnv, item: Item, before: CustomerRow | undefined, now: number): CustomerRow {
    return {
      id: before?.id ?? newId('cus'),
      org_id: store.orgId,
      store_env_id: store.id,
      platform_customer_id: item.platformCustomerId,
      email: item.email ?? null,
      email_key: emailKey(item.email),
      first_name: item.firstName ?? null,
      last_name: item.lastName ?? null,
      phone: item.phone ?? null,
      birthday_month: item.birthday?.month ?? null,
      birthday_day: item.birthday?.day ?? null,
      birthday_year: item.birthday?.year ?? null,
      erased_at: null,
      created_at: before?.created_at ?? now,
      updated_at: now
    }
  }

  return {
    async upsert (store: StoreEnv, items: unknown[]) {
      if (items.length > MAX_BATCH) throw new errors.BatchTooLarge(MAX_BATCH)
      const now = clock()
      return applyBulk(db, checkCustomers(items), items.length, {
        storeId: store.id,
        keyOf: (item) => item.platformCustomerId,
        load: (keys, trx) => repo.findByKeys(store.id, keys, trx, true),
        columns: CUSTOMER_FIELDS,
        toRows: async (list, existing) => list.map((item) => toRow(store, item, existing.get(item.platformCustomerId), now)),
        write: async (changed, existing, trx) => {
          await repo.upsert(changed, trx)
          await events.appendMany(trx, store.id, store.orgId, changed.map((row) => ({
            type: existing.has(row.platform_customer_id!) ? 'customer.updated' : 'customer.created',
            data: presentCustomer(row)
          })))
        }
      })
    },

    async list (storeId: string, query: PageQuery & { updatedSince?: string, email?: string }) {
      const page = toPage(query)
      const updatedSince = query.updatedSince === undefined ? null : parseDateTime(query.updatedSince)
      const { total, rows } = await repo.list(storeId, { updatedSince, email: query.email }, page)
      return envelope(rows.map(presentCustomer), total, page)
    },

    async get (storeId: string, id: string) {
      const row = await repo.find(storeId, id)
      if (!row) throw new errors.NotFound('Customer')
      return presentCustomer(row)
    },

    /**
     * Erasure (decisions.md section 15): one transaction, audited. The built-in steps clear the customer, their orders,
     * reviews and logged events; then each of `erasure` runs with the address the customer had.
     */
    async erase (store: StoreEnv, id: string, actor: Credential, ip: string | null) {
      await withDeadlockRetry(() => db.transaction(async (trx) => {
        const row = await repo.find(store.id, id, trx, true)
        if (!row) throw new errors.NotFound('Customer')
        const now = clock()
        await repo.erase(store.id, id, now, trx)
        const erased = await eraseCustomerData(trx, { store, customerId: id, email: row.email, events, now })
        const kept: string[] = []
        for (const step of erasure) kept.push(...((await step(trx, { orgId: store.orgId, storeEnvId: store.id, customerId: id, email: row.email }))?.eventSubjects ?? []))
        if (kept.length) await scrubEvents(trx, store.id, kept, erased.addresses)
        await audit.record({ orgId: store.orgId, action: 'customer.erased', actor: actorOf(actor), subject: `customer:${id}`, ip, details: { storeEnvId: store.id, ...erased.counts } }, trx)
      }))
    }
  }
}
export type CustomersService = ReturnType<typeof customersService>
