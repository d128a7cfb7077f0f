import { parseDateTime } from '../../lib/formats.js'
import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import type { Precondition } from '../../lib/conditional.js'
import { lockStoreContent, stamps } from '../../lib/content.js'
import { newId } from '../../lib/ids.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { Clock } from '../../lib/clock.js'
import type { EventLog } from '../events/index.js'
import { contentWriter } from '../content/index.js'
import type { StoreEnv } from '../../types.js'
import type { FaqFilter, FaqRow, FaqsRepository } from './faqs.repository.js'

export interface FaqInput {
  question: string
  answer: string
  productId?: string | null
  categoryId?: string | null
  status?: FaqRow['status']
  position?: number
}

/** Whether a category id names a category of the store (the categories service answers it). */
export type CategoryExists = (storeId: string, id: string, trx: Knex) => Promise<boolean>

interface Deps { db: Knex, repo: FaqsRepository, events: EventLog, clock: Clock, categoryExists: CategoryExists }

export function presentFaq (row: FaqRow) {
  return {
    id: row.id,
    question: row.question,
    answer: row.answer,
    productId: row.product_id,
    categoryId: row.category_id,
    status: row.status,
    position: Number(row.position),
    ...stamps(row)
  }
}

export function faqsService ({ db, repo, events, clock, categoryExists }: Deps) {
  // An FAQ's category must exist when it is written: FAQ writes take turns with category deletes.
  const writer = contentWriter({ db, events, clock, repo, singular: 'faq', label: 'FAQ', present: presentFaq, serialize: lockStoreContent })

  async function checkCategory (row: FaqRow, trx: Knex) {
    if (row.category_id !== null && !await categoryExists(row.store_env_id, row.category_id, trx)) {
      throw new errors.InvalidRequest('categoryId names no category of this store')
    }
  }

  return {
    create (store: StoreEnv, input: FaqInput) {
      return writer.create(store, {
        question: input.question,
        answer: input.answer,
        product_id: input.productId ?? null,
        category_id: input.categoryId ?? null,
        status: input.status ?? 'draft',
        position: input.position ?? 0
      }, newId('faq'), checkCategory)
    },

    list: (storeId: string, query: FaqFilter) => writer.list(storeId, { product_id: query.productId, status: query.status }, query),

    get: writer.get,

    update (store: StoreEnv, id: string, patch: Partial<FaqInput>, precondition: Precondition | null = null) {
      return writer.update(store, id, {
        question: patch.question,
        answer: patch.answer,
        product_id: patch.productId,
        category_id: patch.categoryId,
        status: patch.status,
        position: patch.position
      }, (after, before, trx) => after.category_id !== before.category_id ? checkCategory(after, trx) : Promise.resolve(), precondition)
    },

    remove (store: StoreEnv, id: string, precondition: Precondition | null = null) {
      return writer.remove(store, id, undefined, precondition)
    },

    /** Categories hook: a deleted category's FAQs lose it, each with its `faq.updated`. */
    async uncategorise (trx: Knex.Transaction, store: StoreEnv, categoryId: string) {
      const now = clock()
      for (const row of await repo.inCategory(store.id, categoryId, trx)) {
        const after = { ...row, category_id: null, updated_at: now }
        await repo.update(store.id, row.id, { category_id: null, updated_at: now }, trx)
        await writer.emit(trx, store, 'updated', presentFaq(after))
      }
    },

    /** Storefront: published FAQs of a product plus the store-wide ones, by position. */
    async storefront (storeId: string, query: PageQuery & { productId?: string, updatedSince?: string }) {
      const page = toPage(query)
      const { total, rows } = await repo.published(
        storeId,
        query.productId,
        page,
        query.updatedSince === undefined ? null : parseDateTime(query.updatedSince)
      )
      return envelope(
        rows.map((row) => ({
          id: row.id,
          question: row.question,
          answer: row.answer,
          productId: row.product_id,
          position: Number(row.position)
        })),
        total,
        page
      )
    }
  }
}
export type FaqsService = ReturnType<typeof faqsService>
