import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import type { Precondition } from '../../lib/conditional.js'
import { lockStoreContent, stamps } from '../../lib/content.js'
import { newId } from '../../lib/ids.js'
import type { Clock } from '../../lib/clock.js'
import type { EventLog } from '../events/index.js'
import { contentWriter } from '../content/index.js'
import type { StoreEnv } from '../../types.js'
import type { PlacementFilter, PlacementRow, PlacementsRepository } from './placements.repository.js'

export interface PlacementSettings {
  productId?: string
  galleryId?: string
  pageSize?: number
  heading?: string
}
export interface PlacementInput {
  webPageId: string
  widget: PlacementRow['widget']
  selector: string
  settings?: PlacementSettings
  enabled?: boolean
}

interface Deps {
  db: Knex
  repo: PlacementsRepository
  events: EventLog
  clock: Clock
  /** Whether the id names a web page of the store (the web pages service answers it). */
  pageExists: (storeId: string, id: string, trx: Knex) => Promise<boolean>
  /** Whether the id names a gallery of the store (the galleries repository answers it). */
  galleryExists: (storeId: string, id: string, trx: Knex) => Promise<boolean>
  /** The page a visitor is on, by its URL. */
  pageByUrl: (storeId: string, url: string) => Promise<{ id: string, url: string, type: string } | undefined>
}

export function presentPlacement (row: PlacementRow) {
  return {
    id: row.id,
    webPageId: row.web_page_id,
    widget: row.widget,
    selector: row.selector,
    settings: JSON.parse(row.settings) as PlacementSettings,
    enabled: Boolean(row.enabled),
    ...stamps(row)
  }
}

export function placementsService ({ db, repo, events, clock, pageExists, galleryExists, pageByUrl }: Deps) {
  // A placement's page must exist when it is written: placement writes take turns with page deletes.
  const writer = contentWriter({
    db,
    events,
    clock,
    repo,
    singular: 'placement',
    label: 'Placement',
    present: presentPlacement,
    serialize: lockStoreContent
  })

  async function checkPage (row: PlacementRow, trx: Knex) {
    if (!await pageExists(row.store_env_id, row.web_page_id, trx)) {
      throw new errors.InvalidRequest('webPageId names no web page of this store')
    }
  }

  /** A gallery id of another store or organization, or of none, would show nothing or another tenant's photos. */
  async function checkGallery (row: PlacementRow, trx: Knex) {
    const { galleryId } = JSON.parse(row.settings) as PlacementSettings
    if (galleryId !== undefined && !await galleryExists(row.store_env_id, galleryId, trx)) {
      throw new errors.InvalidRequest('settings.galleryId names no gallery of this store')
    }
  }

  return {
    create (store: StoreEnv, input: PlacementInput) {
      return writer.create(store, {
        web_page_id: input.webPageId,
        widget: input.widget,
        selector: input.selector,
        settings: JSON.stringify(input.settings ?? {}),
        enabled: input.enabled ?? true
      }, newId('plc'), async (row, trx) => { await checkPage(row, trx); await checkGallery(row, trx) })
    },

    list: (storeId: string, query: PlacementFilter) => writer.list(storeId, { web_page_id: query.webPageId, widget: query.widget }, query),

    get: writer.get,

    update (store: StoreEnv, id: string, patch: Partial<PlacementInput>, precondition: Precondition | null = null) {
      return writer.update(store, id, {
        web_page_id: patch.webPageId,
        widget: patch.widget,
        selector: patch.selector,
        settings: patch.settings === undefined ? undefined : JSON.stringify(patch.settings),
        enabled: patch.enabled
      }, async (after, before, trx) => {
        if (after.web_page_id !== before.web_page_id) await checkPage(after, trx)
        if (after.settings !== before.settings) await checkGallery(after, trx)
      }, precondition)
    },

    remove (store: StoreEnv, id: string, precondition: Precondition | null = null) {
      return writer.remove(store, id, undefined, precondition)
    },

    /** Web pages hook, in the page's deletion: its placements go with it, each with its `placement.deleted`. */
    async leavePage (trx: Knex.Transaction, store: StoreEnv, webPageId: string) {
      for (const row of await repo.on(store.id, webPageId, trx)) {
        await repo.remove(store.id, row.id, trx)
        await writer.emit(trx, store, 'deleted', presentPlacement(row))
      }
    },

    /** Storefront: the enabled placements of the page at `url` (none when the store has no such page). */
    async forPage (storeId: string, url: string) {
      const page = await pageByUrl(storeId, url)
      if (!page) return { page: null, data: [] }
      const rows = await repo.enabledOn(storeId, page.id)
      return {
        page: { id: page.id, url: page.url, type: page.type },
        data: rows.map((row) => ({
          id: row.id,
          widget: row.widget,
          selector: row.selector,
          settings: JSON.parse(row.settings) as PlacementSettings
        }))
      }
    }
  }
}
export type PlacementsService = ReturnType<typeof placementsService>
