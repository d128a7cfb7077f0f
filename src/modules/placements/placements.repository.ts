import type { Knex } from 'knex'
import { contentTable, type ContentRow, type SinceQuery } from '../../lib/content.js'

export interface PlacementRow extends ContentRow {
  web_page_id: string
  widget: 'reviews' | 'summary' | 'gallery' | 'faqs' | 'badge'
  selector: string
  /** JSON of the settings object. */
  settings: string
  enabled: boolean | number
}

export interface PlacementFilter extends SinceQuery { webPageId?: string, widget?: PlacementRow['widget'] }

export function placementsRepository (db: Knex) {
  const table = contentTable<PlacementRow>(db, 'placements')
  return {
    ...table,

    /** Every placement on a page, as the transaction sees it (the page's deletion takes them with it). */
    on (storeId: string, webPageId: string, trx: Knex): Promise<PlacementRow[]> {
      return trx<PlacementRow>('placements').where({ store_env_id: storeId, web_page_id: webPageId }).orderBy('id') as unknown as Promise<
        PlacementRow[]
      >
    },

    enabledOn (storeId: string, webPageId: string): Promise<PlacementRow[]> {
      return db<PlacementRow>('placements').where({ store_env_id: storeId, web_page_id: webPageId, enabled: true }).orderBy(
        'created_at',
        'asc'
      ).orderBy('id', 'asc') as unknown as Promise<PlacementRow[]>
    }
  }
}
export type PlacementsRepository = ReturnType<typeof placementsRepository>
