import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { toMs } from '../../lib/formats.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import { itemChecker, withDeadlockRetry, type ItemError } from '../../lib/bulk.js'
import { lockEventLog, type EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import { type ReviewRow, type ReviewsRepository, isVerified, presentReview } from '../reviews/index.js'
import type { ImportRow, ImportsRepository } from './imports.repository.js'
import { ImportReviewItem, MAX_IMPORT_ITEMS } from './imports.schemas.js'

interface Deps { db: Knex, repo: ImportsRepository, reviews: ReviewsRepository, events: EventLog, clock: Clock }

const checkItems = itemChecker(ImportReviewItem, 'productId', { unique: false })

function present (row: ImportRow) {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    received: Number(row.received),
    imported: Number(row.imported),
    failed: Number(row.failed),
    errors: JSON.parse(row.errors) as ItemError[],
    createdAt: iso(row.created_at)!,
    completedAt: iso(row.completed_at)
  }
}

/**
 * What an import came to, at a glance: `completed` (every item imported), `partial` (some refused; see `errors`) or
 * `failed` (items sent, none imported). An empty import is completed: nothing was refused.
 */
export function importStatus (received: number, imported: number): ImportRow['status'] {
  if (imported === received) return 'completed'
  return imported === 0 ? 'failed' : 'partial'
}

export function importsService ({ db, repo, reviews, events, clock }: Deps) {
  return {
    async list (storeId: string, query: PageQuery & { updatedSince?: string }) {
      const page = toPage(query)
      const { total, rows } = await repo.list(storeId, toMs(query.updatedSince), page)
      return envelope(rows.map((row) => { const { errors: _errors, ...summary } = present(row); return summary }), total, page)
    },

    async create (store: StoreEnv, items: unknown[]) {
      if (items.length > MAX_IMPORT_ITEMS) throw new errors.BatchTooLarge(MAX_IMPORT_ITEMS)
      const { valid, errors: itemErrors } = checkItems(items)
      const now = clock()
      const id = newId('imp')
      const row: ImportRow = {
        id,
        org_id: store.orgId,
        store_env_id: store.id,
        type: 'reviews',
        status: importStatus(items.length, valid.length),
        received: items.length,
        imported: valid.length,
        failed: itemErrors.length,
        errors: JSON.stringify(itemErrors),
        created_at: now,
        completed_at: now
      }
      await withDeadlockRetry(() => db.transaction(async (trx) => {
        await lockEventLog(trx, store.id)
        const emails = await reviews.orderEmails(store.id, valid.flatMap(({ item }) => (item.orderId ? [item.orderId] : [])), trx)
        const rows = valid.map(({ item }): ReviewRow => ({
          id: newId('rev'),
          org_id: store.orgId,
          store_env_id: store.id,
          product_id: item.productId,
          order_id: item.orderId ?? null,
          rating: item.rating,
          title: item.title ?? null,
          body: item.body,
          author_name: item.authorName,
          author_email: item.authorEmail ?? null,
          verified: isVerified(item.authorEmail ?? null, item.orderId ? emails.get(item.orderId) : null),
          status: item.status ?? 'published',
          helpful_count: 0,
          media: '[]',
          source: 'import',
          reply: null,
          replied_at: null,
          import_id: id,
          written_at: toMs(item.writtenAt)!,
          created_at: now,
          updated_at: now
        }))
        await reviews.insert(rows, trx)
        await repo.insert(row, trx)
        await events.appendMany(trx, store.id, store.orgId, rows.map((r) => ({ type: 'review.created', data: presentReview(r) })))
      }))
      return present(row)
    },

    async get (storeId: string, id: string) {
      const row = await repo.find(storeId, id)
      if (!row) throw new errors.NotFound('Import')
      return present(row)
    }
  }
}
export type ImportsService = ReturnType<typeof importsService>
