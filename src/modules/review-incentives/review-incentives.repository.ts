import type { Knex } from 'knex'
import { lockForWrite } from '../../lib/bulk.js'
import { countAndPage } from '../../lib/pagination.js'

export interface IncentiveRow {
  id: string
  org_id: string
  store_env_id: string
  type: 'coupon' | 'points'
  points: number | null
  min_rating: number | null
  requires_media: boolean | number
  verified_only: boolean | number
  pool_empty_count: number
  pool_empty_at: number | null
  created_at: number
  updated_at: number
}

export interface IssueRow {
  id: string
  org_id: string
  store_env_id: string
  review_id: string
  incentive_id: string
  status: 'issued' | 'pool_empty' | 'no_customer'
  code: string | null
  points: number | null
  customer_id: string | null
  created_at: number
}

export type Pool = { available: number, issued: number }

export function reviewIncentivesRepository (db: Knex) {
  return {
    /** With `lock`, a locking read (lib/bulk.ts): writers of the incentive's code pool then take turns. */
    find (storeId: string, id: string, trx: Knex = db, lock = false): Promise<IncentiveRow | undefined> {
      return lockForWrite(trx<IncentiveRow>('review_incentives').where({ store_env_id: storeId, id }), lock).first()
    },

    all (storeId: string, trx: Knex): Promise<IncentiveRow[]> {
      return trx<IncentiveRow>('review_incentives').where({ store_env_id: storeId }).orderBy('created_at').orderBy('id')
    },

    list (storeId: string, updatedSince: number | null, page: { offset: number, limit: number }) {
      const base = db('review_incentives').where({ store_env_id: storeId })
      if (updatedSince !== null) base.where('updated_at', '>=', updatedSince)
      return countAndPage<IncentiveRow>(base, page, (q) => q.orderBy('updated_at').orderBy('id'))
    },

    async insert (row: IncentiveRow, trx: Knex) { await trx('review_incentives').insert(row) },
    async update (id: string, patch: Partial<IncentiveRow>, trx: Knex) { await trx('review_incentives').where({ id }).update(patch) },
    /** One more publication found the pool empty: counted in place, so concurrent ones each count. */
    async countPoolEmpty (id: string, now: number, trx: Knex) {
      await trx('review_incentives').where({ id }).update({
        pool_empty_count: trx.raw('pool_empty_count + 1'),
        pool_empty_at: now,
        updated_at: now
      })
    },
    async remove (id: string, trx: Knex): Promise<boolean> { return (await trx('review_incentives').where({ id }).delete()) === 1 },

    /** Available and issued codes per incentive, in one query. */
    async pools (ids: string[], trx: Knex = db): Promise<Map<string, Pool>> {
      const rows: Array<{ incentive_id: string, issued: number | string, total: number | string }> = ids.length
        ? await trx('review_incentive_codes').whereIn('incentive_id', ids).groupBy('incentive_id')
          .select('incentive_id', trx.raw('count(*) as total'), trx.raw('count(review_id) as issued'))
        : []
      return new Map(rows.map((r) => [r.incentive_id, { available: Number(r.total) - Number(r.issued), issued: Number(r.issued) }]))
    },

    /** Inserts the codes not yet in the pool; answers how many were new. */
    async addCodes (incentive: IncentiveRow, codes: string[], now: number, trx: Knex): Promise<number> {
      const unique = [...new Set(codes)]
      const known = new Set<string>()
      for (let i = 0; i < unique.length; i += 500) {
        for (
          const code of await trx('review_incentive_codes').where({ incentive_id: incentive.id }).whereIn('code', unique.slice(i, i + 500))
            .pluck('code')
        ) known.add(code)
      }
      const fresh = unique.filter((code) => !known.has(code))
      const rows = fresh.map((code) => ({
        org_id: incentive.org_id,
        store_env_id: incentive.store_env_id,
        incentive_id: incentive.id,
        code,
        review_id: null,
        issued_at: null,
        created_at: now
      }))
      for (let i = 0; i < rows.length; i += 100) await trx('review_incentive_codes').insert(rows.slice(i, i + 100))
      return fresh.length
    },

    /**
     * Takes the oldest free code for the review, or null when the pool is empty. On MySQL a free code another
     * transaction is taking is skipped, not waited on; the conditional update makes the claim atomic on both.
     */
    async claimCode (incentiveId: string, reviewId: string, now: number, trx: Knex): Promise<string | null> {
      for (let attempt = 0; attempt < 5; attempt++) {
        const query = trx('review_incentive_codes').where({ incentive_id: incentiveId }).whereNull('review_id').orderBy('id').first(
          'id',
          'code'
        )
        if (trx.client.config.client === 'mysql2') query.forUpdate().skipLocked()
        const free = await query as { id: number, code: string } | undefined
        if (!free) return null
        const taken = await trx('review_incentive_codes').where({ id: free.id }).whereNull('review_id').update({
          review_id: reviewId,
          issued_at: now
        })
        if (taken === 1) return free.code
      }
      return null
    },

    async insertIssue (row: IssueRow, trx: Knex) { await trx('review_incentive_issues').insert(row) },
    async updateIssue (id: string, patch: Partial<IssueRow>, trx: Knex) { await trx('review_incentive_issues').where({ id }).update(patch) }
  }
}
export type ReviewIncentivesRepository = ReturnType<typeof reviewIncentivesRepository>
