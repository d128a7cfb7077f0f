import type { Precondition } from '../../lib/conditional.js'
import type { Knex } from 'knex'
import type { DomainBus } from '../../lib/domain-events.js'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { applyBulk, itemChecker, withDeadlockRetry, type CheckedItems } from '../../lib/bulk.js'
import { parseDateTime } from '../../lib/formats.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { EventLog } from '../events/index.js'
import type { AuditRepository } from '../audit/index.js'
import { actorOf, type Credential, type StoreEnv } from '../../types.js'
import { CUSTOMER_FIELDS, emailKey, type CustomerRow, type CustomersRepository } from './customers.repository.js'
import { CustomerItem } from './customers.schemas.js'
import { eraseCustomerData, scrubEvents, type ErasureOutcome, type ErasureSubject } from './erasure.js'
import { prefix } from '../../lib/text.js'

export const MAX_BATCH = 250

interface Deps {
  db: Knex
  repo: CustomersRepository
  events: EventLog
  audit: AuditRepository
  clock: Clock
  bus: DomainBus
}

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /**
     * A customer is being erased, after the built-in steps, in the erasure's transaction: each module clears what
     * it holds of them (loyalty, the mail log and reward mails, the suppression list, gallery leads and photos).
     */
    'customer.erased': { payload: { subject: ErasureSubject }, answer: ErasureOutcome }
  }
}

type Item = typeof CustomerItem.static

export function presentCustomer (row: CustomerRow) {
  return {
    id: row.id,
    platformCustomerId: row.platform_customer_id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    phone: row.phone,
    birthday: row.birthday_month == null
      ? null
      : {
          month: Number(row.birthday_month),
          day: Number(row.birthday_day),
          year: row.birthday_year == null ? null : Number(row.birthday_year)
        },
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

/** A real calendar day: 31 April never, 29 February only in a leap year or without a year. */
export function isCalendarDay (month: number, day: number, year?: number | null): boolean {
  const probe = new Date(Date.UTC(year ?? 2000, month - 1, day))
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day
}

/** What a gallery lead brings (galleries.service.ts, OnLead): the address is already trimmed and lower-cased. */
export interface LeadInput { orgId: string, storeEnvId: string, email: string, name: string | null }

/** A lead's one name field as first and last name: its first word, then the rest, each cut to the columns' 100 characters. */
export function splitName (name: string | null): { first_name: string | null, last_name: string | null } {
  const [first, ...rest] = (name ?? '').trim().split(/\s+/)
  const cut = (text: string) => prefix(text, 100) || null
  return { first_name: cut(first), last_name: cut(rest.join(' ')) }
}

const checkShape = itemChecker(CustomerItem, 'platformCustomerId')

/** The schema's checks, then the one it cannot express (the birthday is a day that exists). */
function checkCustomers (items: unknown[]): CheckedItems<Item> {
  const checked = checkShape(items)
  const valid = checked.valid.filter(({ index, item }) => {
    const b = item.birthday
    if (!b || isCalendarDay(b.month, b.day, b.year)) return true
    checked.errors.push({
      index,
      platformId: item.platformCustomerId,
      code: 'invalid_item',
      message: `birthday: ${b.month}/${b.day}${b.year ? `/${b.year}` : ''} is not a day of the calendar`
    })
    return false
  })
  return { valid, errors: checked.errors }
}

export function customersService ({ db, repo, events, audit, clock, bus }: Deps) {
  /** A null platform id: a customer made from a gallery lead, whom the platform has not synced. */
  function toRow (
    store: Pick<StoreEnv, 'id' | 'orgId'>,
    item: Omit<Item, 'platformCustomerId'> & { platformCustomerId: string | null },
    before: CustomerRow | undefined,
    now: number
  ): CustomerRow {
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
      // Ids of customers made from gallery leads that this batch's items take over (one item each).
      let adopted = new Set<string>()
      return applyBulk(db, checkCustomers(items), items.length, {
        storeId: store.id,
        keyOf: (item) => item.platformCustomerId,
        load: (keys, trx) => repo.findByKeys(store.id, keys, trx, true),
        columns: CUSTOMER_FIELDS,
        toRows: async (list, existing, trx) => {
          const newcomers = list.filter((item) => !existing.has(item.platformCustomerId))
          const leads = await repo.fromLeads(store.id, [
            ...new Set(newcomers.map((item) => emailKey(item.email)).filter((k): k is string => k !== null))
          ], trx)
          adopted = new Set()
          return list.map((item) => {
            let before = existing.get(item.platformCustomerId)
            const lead = before ? undefined : leads.get(emailKey(item.email) ?? '')
            if (lead && !adopted.has(lead.id)) {
              adopted.add(lead.id)
              before = lead
            }
            return toRow(store, item, before, now)
          })
        },
        write: async (changed, existing, trx) => {
          await repo.upsert(changed.filter((row) => !adopted.has(row.id)), trx)
          for (const row of changed) if (adopted.has(row.id)) await repo.adopt(row, trx)
          await events.appendMany(trx, store.id, store.orgId, changed.map((row) => ({
            type: existing.has(row.platform_customer_id!) || adopted.has(row.id) ? 'customer.updated' : 'customer.created',
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

    /**
     * A gallery lead becomes or updates a customer (docs/contract/resources.md#customers), in the lead's transaction,
     * which holds the store's event lock from the lead's own event on, so two leads of one address make one customer.
     * The customer with the address gets the lead's name only if it has none: the platform owns what it syncs (its next
     * upsert replaces every field anyway). Otherwise a customer without a platform id is made; later leads rename it.
     * The suppression list is not read or changed: a customer is not a mail, and every mail checks the list itself
     * (email.sender.ts), so an unsubscribed, bounced or erased address stays unmailed until the merchant lifts it.
     */
    async fromLead (trx: Knex.Transaction, lead: LeadInput): Promise<string> {
      const store = { id: lead.storeEnvId, orgId: lead.orgId }
      // A locking read: on MySQL it sees what a lead committed while this one waited for the event lock.
      const before = await repo.byEmailKey(store.id, emailKey(lead.email)!, trx, true)
      const now = clock()
      if (!before) {
        const row = { ...toRow(store, { platformCustomerId: null, email: lead.email }, undefined, now), ...splitName(lead.name) }
        await repo.upsert([row], trx)
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'customer.created', data: presentCustomer(row) })
        return row.id
      }
      const named = before.first_name != null || before.last_name != null
      if (lead.name == null || (named && before.platform_customer_id != null)) return before.id
      const after = { ...before, ...splitName(lead.name), updated_at: now }
      if (after.first_name === before.first_name && after.last_name === before.last_name) return before.id
      await repo.rename(store.id, before.id, after, trx)
      await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'customer.updated', data: presentCustomer(after) })
      return before.id
    },

    async get (storeId: string, id: string) {
      const row = await repo.find(storeId, id)
      if (!row) throw new errors.NotFound('Customer')
      return presentCustomer(row)
    },

    /**
     * Erasure (docs/contract/resources.md#customers): one transaction, audited. The built-in steps clear the customer,
     * their orders, reviews and logged events; then every module reacting to `customer.erased` clears its part, with
     * the address the customer had.
     */
    async erase (store: StoreEnv, id: string, actor: Credential, ip: string | null, precondition: Precondition | null = null) {
      await withDeadlockRetry(() =>
        db.transaction(async (trx) => {
          const row = await repo.find(store.id, id, trx, true)
          if (!row) throw new errors.NotFound('Customer')
          precondition?.(presentCustomer(row))
          const now = clock()
          await repo.erase(store.id, id, now, trx)
          const erased = await eraseCustomerData(trx, { store, customerId: id, email: row.email, events, now })
          const kept: string[] = []
          const subject = { orgId: store.orgId, storeEnvId: store.id, customerId: id, email: row.email }
          for (const outcome of await bus.emit('customer.erased', trx, { subject })) kept.push(...(outcome.eventSubjects ?? []))
          if (kept.length) await scrubEvents(trx, store.id, kept, erased.addresses)
          await audit.record({
            orgId: store.orgId,
            action: 'customer.erased',
            actor: actorOf(actor),
            subject: `customer:${id}`,
            ip,
            details: { storeEnvId: store.id, ...erased.counts }
          }, trx)
        })
      )
    }
  }
}
export type CustomersService = ReturnType<typeof customersService>
