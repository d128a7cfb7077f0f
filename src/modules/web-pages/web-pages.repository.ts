import type { Knex } from 'knex'
import { contentTable, type ContentRow, type SinceQuery } from '../../lib/content.js'

export interface WebPageRow extends ContentRow {
  url: string
  url_hash: string
  title: string | null
  type: 'home' | 'product' | 'collection' | 'custom'
}

export interface WebPageFilter extends SinceQuery { type?: WebPageRow['type'] }

export function webPagesRepository (db: Knex) {
  const table = contentTable<WebPageRow>(db, 'web_pages')
  return {
    ...table,

    byUrlHash (storeId: string, hash: string, trx: Knex = db): Promise<WebPageRow | undefined> {
      return trx<WebPageRow>('web_pages').where({ store_env_id: storeId, url_hash: hash }).first() as Promise<WebPageRow | undefined>
    }
  }
}
export type WebPagesRepository = ReturnType<typeof webPagesRepository>
