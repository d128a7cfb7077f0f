import type { Knex } from 'knex'
import type { DomainBus } from '../../lib/domain-events.js'
import { errors } from '../../errors.js'
import type { Precondition } from '../../lib/conditional.js'
import { lockStoreContent, stamps } from '../../lib/content.js'
import { newId } from '../../lib/ids.js'
import type { Clock } from '../../lib/clock.js'
import type { EventLog } from '../events/index.js'
import { contentWriter } from '../content/index.js'
import type { StoreEnv } from '../../types.js'
import type { CategoriesRepository, CategoryFilter, CategoryRow } from './categories.repository.js'

export interface CategoryInput { name: string, slug: string, parentId?: string | null }

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /** A category is being deleted: what refers to it (FAQs, products) lets go of it, in the same transaction. */
    'category.deleted': { payload: { store: StoreEnv, categoryId: string } }
  }
}

interface Deps { db: Knex, repo: CategoriesRepository, events: EventLog, clock: Clock, bus: DomainBus }

/** A tree deeper than this is refused: it also bounds the walk up from a new parent. */
export const MAX_DEPTH = 32

export function presentCategory (row: CategoryRow) {
  return { id: row.id, name: row.name, slug: row.slug, parentId: row.parent_id, ...stamps(row) }
}

export function categoriesService ({ db, repo, events, clock, bus }: Deps) {
  const writer = contentWriter({
    db,
    events,
    clock,
    repo,
    singular: 'category',
    label: 'Category',
    present: presentCategory,
    serialize: lockStoreContent
  })

  async function checkSlug (row: CategoryRow, trx: Knex) {
    const holder = await repo.bySlug(row.store_env_id, row.slug, trx)
    if (holder && holder.id !== row.id) throw new errors.Conflict(`Another category already has the slug "${row.slug}"`)
  }

  /** The parent exists in the store, and walking up from it never meets the category itself (no cycles). */
  async function checkParent (row: CategoryRow, trx: Knex) {
    let at = row.parent_id
    for (let depth = 1; at !== null; depth++) {
      if (at === row.id) throw new errors.Conflict('A category cannot be its own ancestor')
      if (depth >= MAX_DEPTH) throw new errors.Conflict(`Categories nest at most ${MAX_DEPTH} levels deep`)
      const parent = await repo.find(row.store_env_id, at, trx)
      if (!parent) throw new errors.InvalidRequest('parentId names no category of this store')
      at = parent.parent_id
    }
  }

  return {
    create (store: StoreEnv, input: CategoryInput) {
      return writer.create(
        store,
        { name: input.name, slug: input.slug, parent_id: input.parentId ?? null },
        newId('cat'),
        async (row, trx) => {
          await checkSlug(row, trx)
          await checkParent(row, trx)
        }
      )
    },

    list: (storeId: string, query: CategoryFilter) => writer.list(storeId, { parent_id: query.parentId }, query),

    get: writer.get,

    update (store: StoreEnv, id: string, patch: Partial<CategoryInput>, precondition: Precondition | null = null) {
      return writer.update(store, id, { name: patch.name, slug: patch.slug, parent_id: patch.parentId }, async (after, before, trx) => {
        if (after.slug !== before.slug) await checkSlug(after, trx)
        if (after.parent_id !== before.parent_id) await checkParent(after, trx)
      }, precondition)
    },

    /** A category with subcategories is kept (409): deleting it would silently reshape the tree. */
    remove (store: StoreEnv, id: string, precondition: Precondition | null = null) {
      return writer.remove(store, id, async (row, trx) => {
        if (await repo.hasChildren(store.id, row.id, trx)) throw new errors.Conflict('Move or delete its subcategories first')
        await bus.emit('category.deleted', trx, { store, categoryId: row.id })
      }, precondition)
    },

    /** For FAQs and products: whether these ids are all categories of the store. */
    async exist (storeId: string, ids: string[], trx?: Knex): Promise<boolean> {
      const unique = [...new Set(ids)]
      return (await repo.findMany(storeId, unique, trx)).length === unique.length
    }
  }
}
export type CategoriesService = ReturnType<typeof categoriesService>
