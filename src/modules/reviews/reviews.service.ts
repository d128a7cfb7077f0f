import type { Knex } from 'knex'
import type { DomainBus } from '../../lib/domain-events.js'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { withDeadlockRetry } from '../../lib/bulk.js'
import { sha256 } from '../../lib/secrets.js'
import type { Precondition } from '../../lib/conditional.js'
import { isSyncQuery, syncEnvelope, type SyncQuery } from '../../lib/sync.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import { MarkedCache } from '../../lib/marked-cache.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import type { ProductsRepository } from '../products/index.js'
import type { UploadsService } from '../uploads/index.js'
import type { OrderRow } from '../orders/index.js'
import type { ReviewFilter, ReviewRow, ReviewStatus, ReviewsRepository } from './reviews.repository.js'

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /** A review became published, in the moderation transaction (review incentives reward it there). */
    'review.published': { payload: { store: StoreEnv, review: ReviewRow } }
  }
}

interface Deps {
  db: Knex,
  repo: ReviewsRepository,
  products: ProductsRepository,
  uploads: UploadsService,
  events: EventLog,
  clock: Clock,
  secretKey: string
  bus: DomainBus
}

export interface SubmitInput {
  productId: string
  rating: number
  title?: string | null
  body: string
  authorName: string
  authorEmail: string
  orderId?: string | null
  mediaIds?: string[]
}

/**
 * Every API response and event shows the reviewer's address as its last four characters only
 * (docs/contract/catalog.md#reviewer-email).
 */
export function presentReview (row: ReviewRow) {
  return {
    id: row.id,
    productId: row.product_id,
    orderId: row.order_id,
    rating: Number(row.rating),
    title: row.title,
    body: row.body,
    authorName: row.author_name,
    authorEmailLast4: row.author_email ? row.author_email.slice(-4) : null,
    verified: Boolean(row.verified),
    status: row.status,
    helpfulCount: Number(row.helpful_count),
    media: JSON.parse(row.media) as Array<{ id: string, type: 'image' | 'video', url: string, mime: string }>,
    source: row.source,
    reply: row.reply == null ? null : { body: row.reply, repliedAt: iso(row.replied_at)! },
    writtenAt: iso(row.written_at)!,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

/** A review is verified when its author email is the customer email of the order it names. */
export function isVerified (authorEmail: string | null, orderEmail: string | null | undefined): boolean {
  return Boolean(authorEmail && orderEmail && authorEmail.trim().toLowerCase() === orderEmail.trim().toLowerCase())
}

export function reviewsService ({ db, repo, products, uploads, events, clock, secretKey, bus }: Deps) {
  async function load (storeId: string, id: string, trx?: Knex, lock = false) {
    const row = await repo.find(storeId, id, trx, lock)
    if (!row) throw new errors.NotFound('Review')
    return row
  }

  // Pages as read under the store's reviews marker, which every write to its reviews moves after commit: a page
  // nobody changed costs no query (lib/marked-cache.ts). Sync pages (updatedSince) move with the clock: not kept.
  const pages = new MarkedCache<ReturnType<typeof envelope<ReturnType<typeof presentReview>>>>(100)

  return {
    /** `seen`: the store's reviews marker as the request read it; the page is kept under it (`pages`). */
    async list (storeId: string, query: PageQuery & SyncQuery & ReviewFilter, seen: string | null = null) {
      const page = toPage(query)
      if (isSyncQuery(query)) {
        const found = await repo.sync(storeId, query, query, page.limit, (message) => new errors.InvalidRequest(message))
        return syncEnvelope(found.rows.map(presentReview), found, page.limit)
      }
      return pages.through(`${storeId}\0${JSON.stringify(query)}`, seen, async () => {
        const { total, rows } = await repo.list(storeId, query, page)
        return envelope(rows.map(presentReview), total, page)
      })
    },

    async get (storeId: string, id: string) {
      return presentReview(await load(storeId, id))
    },

    /** `precondition`: the request's If-Match, checked once the review is locked, so two editors cannot both pass it. */
    async update (
      store: StoreEnv,
      id: string,
      patch: { status?: ReviewStatus, reply?: string | null },
      precondition: Precondition | null = null
    ) {
      return db.transaction(async (trx) => {
        // A locking read: moderations of one review take turns, so a change sent several times at once is made (and
        // its event appended) once, and the others find it made.
        const before = await load(store.id, id, trx, true)
        precondition?.(presentReview(before))
        const now = clock()
        const changes: Partial<ReviewRow> = {}
        if (patch.status !== undefined && patch.status !== before.status) changes.status = patch.status
        if (patch.reply !== undefined && patch.reply !== before.reply) {
          Object.assign(changes, { reply: patch.reply, replied_at: patch.reply == null ? null : now })
        }
        if (Object.keys(changes).length === 0) return presentReview(before)
        changes.updated_at = now
        await repo.update(store.id, id, changes, trx)
        const after = presentReview({ ...before, ...changes })
        const type = changes.status === 'published' ? 'review.published' : 'review.updated'
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type, data: after })
        if (changes.status === 'published') await bus.emit('review.published', trx, { store, review: { ...before, ...changes } })
        return after
      })
    },

    async remove (store: StoreEnv, id: string, precondition: Precondition | null = null) {
      // A deadlock with an erasure (which takes the event lock first, then the uploads it releases) is retried whole.
      await withDeadlockRetry(() => db.transaction(async (trx) => {
        const row = await load(store.id, id, trx, true)
        precondition?.(presentReview(row))
        // Its images and videos go too, unless something else shows them (a gallery photo it borrowed). Released
        // before the removal, which takes the store's event lock: a gallery deletion holds the uploads first too.
        await uploads.release(trx, store.id, [`review:${id}`])
        await repo.remove(store.id, id, trx)
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'review.deleted', data: presentReview(row) })
      }))
    },

    /** Storefront submission: pending until a merchant publishes it. */
    async submit (store: StoreEnv, input: SubmitInput) {
      if (!await products.find(store.id, input.productId)) throw new errors.NotFound('Product')
      const media = await uploads.media(store.id, input.mediaIds ?? [])
      const id = newId('rev')
      return db.transaction(async (trx) => {
        await uploads.attach(trx, store.id, media.map((m) => m.id), 'mediaIds', `review:${id}`)
        const orderId = input.orderId ?? null
        const emails = orderId ? await repo.orderEmails(store.id, [orderId], trx) : new Map()
        const now = clock()
        const row: ReviewRow = {
          id,
          org_id: store.orgId,
          store_env_id: store.id,
          product_id: input.productId,
          order_id: orderId,
          rating: input.rating,
          title: input.title ?? null,
          body: input.body,
          author_name: input.authorName,
          author_email: input.authorEmail,
          verified: isVerified(input.authorEmail, orderId ? emails.get(orderId) : null),
          status: 'pending',
          helpful_count: 0,
          media: JSON.stringify(media),
          source: 'storefront',
          reply: null,
          replied_at: null,
          import_id: null,
          written_at: now,
          created_at: now,
          updated_at: now
        }
        await repo.insert([row], trx)
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'review.created', data: presentReview(row) })
        return { id: row.id, status: row.status }
      })
    },

    /** One vote per visitor (IP, stored only as a keyed hash) per published review. */
    async helpful (store: StoreEnv, id: string, ip: string) {
      return db.transaction(async (trx) => {
        // Locked first: a vote's insert holds a shared lock on the review (its foreign key) and the count's update
        // needs an exclusive one, so two votes at once deadlocked on MySQL. Votes on one review now take turns.
        const row = await load(store.id, id, trx, true)
        if (row.status !== 'published') throw new errors.NotFound('Review')
        const added = await repo.vote(store.id, id, sha256(`${secretKey}:vote:${ip}`), clock(), trx)
        return { helpfulCount: Number(row.helpful_count) + (added ? 1 : 0) }
      })
    },

    /** Orders hook: after an order's customer email changes, its reviews' `verified` follows (review.updated). */
    async reverify (trx: Knex.Transaction, store: StoreEnv, orders: OrderRow[]) {
      const emails = new Map(orders.map((o) => [o.platform_order_id, o.customer_email]))
      const now = clock()
      for (const review of await repo.byOrders(store.id, [...emails.keys()], trx)) {
        const verified = isVerified(review.author_email, emails.get(review.order_id!))
        if (verified === Boolean(review.verified)) continue
        await repo.update(store.id, review.id, { verified, updated_at: now }, trx)
        await events.append(trx, {
          orgId: store.orgId,
          storeEnvId: store.id,
          type: 'review.updated',
          data: presentReview({ ...review, verified, updated_at: now })
        })
      }
    }
  }
}
export type ReviewsService = ReturnType<typeof reviewsService>
