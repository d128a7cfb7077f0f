import type { Knex } from 'knex'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import { emailKey } from './customers.repository.js'
import { trackOrders } from '../analytics/index.js'
import { equalsIgnoringCase } from '../../db.js'

/** What an erasure step gets: the customer and the address they had (null when they had none). */
export interface ErasureSubject { orgId: string, storeEnvId: string, customerId: string, email: string | null }

/**
 * What a step may answer: the ids of rows it kept but anonymised (a gallery photo) whose logged events still name
 * the person without their address; those events lose their personal fields too, as the customer's own do.
 */
export interface ErasureOutcome { eventSubjects?: string[] }

export const ANONYMOUS = 'Anonymous'

/** Fields of an object that name the person it is about; cleared where the object is about the erased customer. */
const PERSONAL_FIELDS: Record<string, string | null> = {
  email: null,
  customerEmail: null,
  authorEmail: null,
  referredEmail: null,
  refereeEmail: null,
  firstName: null,
  lastName: null,
  customerName: null,
  name: null,
  phone: null,
  birthday: null,
  authorName: ANONYMOUS,
  authorEmailLast4: null
}

const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : null)

/**
 * The event data with the customer gone: every object that names them (an address or their id as one of its values)
 * loses its personal fields, and an address anywhere inside a longer text becomes `[erased]`.
 */
export function scrub (value: unknown, addresses: string[], needles: Set<string>): unknown {
  if (typeof value === 'string') {
    let out = value
    for (const address of addresses) {
      let at = out.toLowerCase().indexOf(address)
      while (at >= 0) {
        out = `${out.slice(0, at)}[erased]${out.slice(at + address.length)}`
        at = out.toLowerCase().indexOf(address)
      }
    }
    return out
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, addresses, needles))
  if (!value || typeof value !== 'object') return value
  const entries = Object.entries(value as Record<string, unknown>)
  const aboutThem = entries.some(([, v]) => needles.has(lower(v) ?? ''))
  return Object.fromEntries(
    entries.map(([k, v]) => [k, aboutThem && k in PERSONAL_FIELDS ? PERSONAL_FIELDS[k] : scrub(v, addresses, needles)])
  )
}

interface Input { store: StoreEnv, customerId: string, email: string | null, events: EventLog, now: number }

/**
 * The built-in steps: the customer's orders (linked to them, or carrying their address), their reviews (by address,
 * or on those orders), the mails queued to them and the events that name them. Rows are found first, then changed by
 * id, so MySQL locks only those rows, not every row of the store its scan passes.
 */
export async function eraseCustomerData (trx: Knex.Transaction, { store, customerId, email, events, now }: Input) {
  const storeId = store.id
  const own = emailKey(email)
  const orders = await ordersOf(trx, storeId, customerId, own)
  const addresses = [...new Set([own, ...orders.map((o) => emailKey(o.customer_email))].filter((a): a is string => a !== null))]
  if (orders.length) {
    const ids = orders.map((o) => o.id)
    await trx('orders').whereIn('id', ids).update({
      customer_email: null,
      customer_name: null,
      platform_customer_id: null,
      customer_id: customerId,
      updated_at: now
    })
    // Through the funnel's tracker: the skipped requests leave "scheduled" in GET /analytics/review-requests too.
    await trackOrders(
      trx,
      storeId,
      orders.map((o) => o.platform_order_id),
      () =>
        trx('orders').whereIn('id', ids).where({ review_request_state: 'scheduled' })
          .update({
            review_request_state: 'skipped',
            review_request_reason: 'The customer was erased',
            review_request_updated_at: now,
            updated_at: now
          })
    )
  }
  const orderIds = orders.map((o) => o.platform_order_id)
  const reviews: Array<{ id: string, title: string | null, body: string, reply: string | null }> = (addresses.length || orderIds.length)
    ? await trx('reviews').where({ store_env_id: storeId }).where((q) => {
      if (addresses.length) q.whereRaw(`lower(author_email) in (${addresses.map(() => '?').join(', ')})`, addresses)
      if (orderIds.length) q.orWhereIn('order_id', orderIds)
    }).select('id', 'title', 'body', 'reply')
    : []
  // The texts stay (the review is kept) but lose the address where the author wrote it in.
  for (const r of reviews) {
    const [title, body, reply] = [r.title, r.body, r.reply].map((
      text
    ) => (text == null ? text : scrub(text, addresses, new Set()) as string))
    await trx('reviews').where({ id: r.id }).update({ author_email: null, author_name: ANONYMOUS, title, body, reply, updated_at: now })
  }
  if (addresses.length) {
    await trx('mail_outbox').where({ store_env_id: storeId }).whereRaw(
      `lower(${trx.raw('??', ['to']).toQuery()}) in (${addresses.map(() => '?').join(', ')})`,
      addresses
    ).delete()
  }
  // The reviews' own events name neither the address nor the customer id, only the review: their ids find them.
  const scrubbed = await scrubEvents(trx, storeId, [customerId, ...addresses, ...reviews.map((r) => r.id)], addresses)
  await events.append(trx, {
    orgId: store.orgId,
    storeEnvId: storeId,
    type: 'customer.deleted',
    data: { id: customerId, orderIds, reviewIds: reviews.map((r) => r.id) }
  })
  return { addresses, counts: { orders: orders.length, reviews: reviews.length, events: scrubbed } }
}

type OrderRow = { id: number, platform_order_id: string, customer_email: string | null }

/** The orders linked to the customer or carrying their address: each by its own index, then merged. */
async function ordersOf (trx: Knex.Transaction, storeId: string, customerId: string, own: string | null): Promise<OrderRow[]> {
  const columns = ['id', 'platform_order_id', 'customer_email']
  const linked: OrderRow[] = await trx('orders').where({ store_env_id: storeId, customer_id: customerId }).select(columns)
  if (!own) return linked
  const byAddress: OrderRow[] = await trx('orders').where({ store_env_id: storeId }).where(equalsIgnoringCase(trx, 'customer_email', own))
    .select(columns)
  const ids = new Set(linked.map((o) => o.id))
  return [...linked, ...byAddress.filter((o) => !ids.has(o.id))].sort((a, b) => a.id - b.id)
}

/** Every logged event of the store naming one of `ids` (or an address) loses its personal fields and the addresses. */
export async function scrubEvents (trx: Knex.Transaction, storeId: string, ids: string[], addresses: string[]): Promise<number> {
  const needles = [...new Set([...ids.map((id) => id.toLowerCase()), ...addresses])]
  const rows: Array<{ id: number, data: string }> = await trx('events').where({ store_env_id: storeId })
    .where((q) => { for (const needle of needles) q.orWhereRaw('lower(data) like ?', [`%${needle}%`]) }).select('id', 'data')
  let changed = 0
  for (const row of rows) {
    const data = JSON.stringify(scrub(JSON.parse(row.data), addresses, new Set(needles)))
    if (data === row.data) continue
    await trx('events').where({ id: row.id }).update({ data })
    changed++
  }
  return changed
}
