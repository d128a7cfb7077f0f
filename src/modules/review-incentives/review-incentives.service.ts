import type { Precondition } from '../../lib/conditional.js'
import type { Knex } from 'knex'
import type { DomainBus } from '../../lib/domain-events.js'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { parseDateTime } from '../../lib/formats.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import type { ReviewRow } from '../reviews/index.js'
import { emailKey, type CustomersRepository } from '../customers/index.js'
import { isDuplicateKey } from '../../db.js'
import type { LoyaltyService } from '../loyalty/index.js'
import type { IncentiveRow, IssueRow, Pool, ReviewIncentivesRepository } from './review-incentives.repository.js'

/** A reward given for a review (an issue with status `issued`), as the publishing transaction's listener sees it. */
export interface IncentiveIssued {
  issueId: string
  type: IncentiveRow['type']
  code: string | null
  points: number | null
  email: string | null
  name: string | null
  productId: string
}

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /** A reward was issued for a review, in the publishing transaction (the email module queues its mail). */
    'incentive.issued': { payload: { store: StoreEnv, issued: IncentiveIssued } }
  }
}

interface Deps {
  db: Knex
  repo: ReviewIncentivesRepository
  customers: CustomersRepository
  loyalty: LoyaltyService
  events: EventLog
  clock: Clock
  bus: DomainBus
}

interface Rules { points?: number | null, minRating?: number | null, requiresMedia?: boolean, verifiedOnly?: boolean }

const NO_POOL: Pool = { available: 0, issued: 0 }

export function presentIncentive (row: IncentiveRow, pool: Pool = NO_POOL) {
  return {
    id: row.id,
    type: row.type,
    points: row.points == null ? null : Number(row.points),
    minRating: row.min_rating == null ? null : Number(row.min_rating),
    requiresMedia: Boolean(row.requires_media),
    verifiedOnly: Boolean(row.verified_only),
    pool,
    poolEmpty: { count: Number(row.pool_empty_count), lastAt: iso(row.pool_empty_at) },
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

/** A points incentive names its points; a coupon one gives a code and no points. */
function checkRules (type: IncentiveRow['type'], points: number | null) {
  if (type === 'points' && points == null) throw new errors.InvalidRequest('points: required for a points incentive')
  if (type === 'coupon' && points != null) throw new errors.InvalidRequest('points: a coupon incentive gives a code, not points')
}

export function qualifies (incentive: IncentiveRow, review: ReviewRow): boolean {
  if (incentive.min_rating != null && Number(review.rating) < Number(incentive.min_rating)) return false
  if (incentive.requires_media && (JSON.parse(review.media) as unknown[]).length === 0) return false
  return !incentive.verified_only || Boolean(review.verified)
}

export function reviewIncentivesService ({ db, repo, customers, loyalty, events, clock, bus }: Deps) {
  async function load (storeId: string, id: string, trx?: Knex, lock = false) {
    const row = await repo.find(storeId, id, trx, lock)
    if (!row) throw new errors.NotFound('Review incentive')
    return row
  }

  async function presented (row: IncentiveRow, trx?: Knex) {
    return presentIncentive(row, (await repo.pools([row.id], trx)).get(row.id) ?? NO_POOL)
  }

  const append = (trx: Knex.Transaction, store: StoreEnv, type: string, data: Record<string, unknown>) =>
    events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type, data })

  /** The reward itself: a code from the pool, or points through the ledger (once per review, by its id). */
  async function reward (
    trx: Knex.Transaction,
    store: StoreEnv,
    incentive: IncentiveRow,
    review: ReviewRow,
    now: number
  ): Promise<Partial<IssueRow>> {
    if (incentive.type === 'coupon') {
      // The pool (or its empty count) is part of the incentive as it reads, so either outcome moves its updatedAt.
      const code = await repo.claimCode(incentive.id, review.id, now, trx)
      if (code) {
        await repo.update(incentive.id, { updated_at: now }, trx)
        return { status: 'issued', code }
      }
      await repo.countPoolEmpty(incentive.id, now, trx)
      return { status: 'pool_empty' }
    }
    const customer = await customers.byEmailKey(store.id, emailKey(review.author_email) ?? '', trx)
    if (!customer) return { status: 'no_customer', points: Number(incentive.points) }
    await loyalty.grant(trx, store, {
      customerId: customer.id,
      kind: 'review',
      key: review.id,
      points: Number(incentive.points),
      reason: 'Review reward',
      event: { type: 'loyalty.account.updated' }
    })
    return { status: 'issued', points: Number(incentive.points), customer_id: customer.id }
  }

  return {
    async create (store: StoreEnv, body: Rules & { type: IncentiveRow['type'] }) {
      checkRules(body.type, body.points ?? null)
      return db.transaction(async (trx) => {
        const now = clock()
        const row: IncentiveRow = {
          id: newId('rin'),
          org_id: store.orgId,
          store_env_id: store.id,
          type: body.type,
          points: body.points ?? null,
          min_rating: body.minRating ?? null,
          requires_media: body.requiresMedia ?? false,
          verified_only: body.verifiedOnly ?? false,
          pool_empty_count: 0,
          pool_empty_at: null,
          created_at: now,
          updated_at: now
        }
        await repo.insert(row, trx)
        const out = presentIncentive(row)
        await append(trx, store, 'review_incentive.created', out)
        return out
      })
    },

    async list (storeId: string, query: PageQuery & { updatedSince?: string }) {
      const page = toPage(query)
      const { total, rows } = await repo.list(storeId, query.updatedSince === undefined ? null : parseDateTime(query.updatedSince), page)
      const pools = await repo.pools(rows.map((r) => r.id))
      return envelope(rows.map((row) => presentIncentive(row, pools.get(row.id))), total, page)
    },

    get: async (storeId: string, id: string) => presented(await load(storeId, id)),

    /** `precondition`: the request's If-Match, checked on the incentive as locked here (also in `remove`). */
    async update (store: StoreEnv, id: string, body: Rules, precondition: Precondition | null = null) {
      return db.transaction(async (trx) => {
        // A locking read: a change made at the same moment is part of what this one announces.
        const before = await load(store.id, id, trx, true)
        if (precondition) precondition(await presented(before, trx))
        const patch: Partial<IncentiveRow> = { updated_at: clock() }
        if (body.points !== undefined) patch.points = body.points
        if (body.minRating !== undefined) patch.min_rating = body.minRating
        if (body.requiresMedia !== undefined) patch.requires_media = body.requiresMedia
        if (body.verifiedOnly !== undefined) patch.verified_only = body.verifiedOnly
        const after = { ...before, ...patch }
        checkRules(after.type, after.points)
        await repo.update(id, patch, trx)
        const out = await presented(after, trx)
        await append(trx, store, 'review_incentive.updated', out)
        return out
      })
    },

    async remove (store: StoreEnv, id: string, precondition: Precondition | null = null) {
      await db.transaction(async (trx) => {
        const row = await load(store.id, id, trx, true)
        if (precondition) precondition(await presented(row, trx))
        // Locking, as changes read it: a change and a delete at once queue on the row in one order (a plain read
        // here deadlocked against them), and a delete that comes second finds nothing (404, no second event).
        if (!(await repo.remove(id, trx))) throw new errors.NotFound('Review incentive')
        await append(trx, store, 'review_incentive.deleted', { id: row.id, type: row.type })
      })
    },

    async addCodes (store: StoreEnv, id: string, codes: string[]) {
      return db.transaction(async (trx) => {
        // Locked: two additions of the same codes at once would both find them new, and the second insert would
        // meet the pool's unique key. Taken in turn, the second sees the first's codes and counts them duplicates.
        const row = await load(store.id, id, trx, true)
        if (row.type !== 'coupon') throw new errors.Conflict('A points incentive has no code pool')
        const now = clock()
        const added = await repo.addCodes(row, codes, now, trx)
        if (added > 0) await repo.update(row.id, { updated_at: now }, trx)
        const out = await presented(added > 0 ? { ...row, updated_at: now } : row, trx)
        // The pool is part of the incentive as it reads: it changed when a code was added (the codes stay out of the log).
        if (added > 0) await append(trx, store, 'review_incentive.updated', out)
        return { added, duplicates: codes.length - added, pool: out.pool }
      })
    },

    /**
     * Reviews hook, in the publishing transaction: the review's one reward. The issue row is written first, so a
     * second publication (or a concurrent one) meets its unique review id and gives nothing more.
     */
    async onPublished (trx: Knex.Transaction, store: StoreEnv, review: ReviewRow) {
      const incentive = (await repo.all(store.id, trx)).find((candidate) => qualifies(candidate, review))
      if (!incentive) return
      const now = clock()
      const issue: IssueRow = {
        id: newId('rii'),
        org_id: store.orgId,
        store_env_id: store.id,
        review_id: review.id,
        incentive_id: incentive.id,
        status: 'issued',
        code: null,
        points: null,
        customer_id: null,
        created_at: now
      }
      try {
        await repo.insertIssue(issue, trx)
      } catch (err) {
        if (isDuplicateKey(err)) return
        throw err
      }
      const outcome = await reward(trx, store, incentive, review, now)
      await repo.updateIssue(issue.id, outcome, trx)
      const done = { ...issue, ...outcome }
      await append(trx, store, 'review_incentive.issued', {
        id: done.id,
        incentiveId: incentive.id,
        type: incentive.type,
        reviewId: review.id,
        productId: review.product_id,
        status: done.status,
        code: done.code,
        points: done.points == null ? null : Number(done.points),
        customerId: done.customer_id
      })
      if (done.status === 'issued') {
        const issued = {
          issueId: done.id,
          type: incentive.type,
          code: done.code ?? null,
          points: done.points == null ? null : Number(done.points),
          email: review.author_email,
          name: review.author_name,
          productId: review.product_id
        }
        await bus.emit('incentive.issued', trx, { store, issued })
      }
    }
  }
}
export type ReviewIncentivesService = ReturnType<typeof reviewIncentivesService>
