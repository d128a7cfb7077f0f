import type { Knex } from 'knex'
import { contentTable, type ContentRow, type SinceQuery } from '../../lib/content.js'

export interface CategoryRow extends ContentRow { name: string, slug: string, parent_id: string | null }

export interface CategoryFilter extends SinceQuery { parentId?: string }

export function categoriesRepository (db: Knex) {
  const table = contentTable<CategoryRow>(db, 'categories')
  return {
    ...table,

    async bySlug (storeId: string, slug: string, trx: Knex): Promise<CategoryRow | undefined> {
      return trx<CategoryRow>('categories').where({ store_env_id: storeId, slug }).first() as Promise<CategoryRow | undefined>
    },

    async hasChildren (storeId: string, id: string, trx: Knex): Promise<boolean> {
      return Boolean(await trx('categories').where({ store_env_id: storeId, parent_id: id }).first('id'))
    }
  }
}
export type CategoriesRepository = ReturnType<typeof categoriesRepository>
