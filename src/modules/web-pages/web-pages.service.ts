import type { Knex } from 'knex'
import type { DomainBus } from '../../lib/domain-events.js'
import { errors } from '../../errors.js'
import type { Precondition } from '../../lib/conditional.js'
import { lockStoreContent, stamps } from '../../lib/content.js'
import { newId } from '../../lib/ids.js'
import { sha256 } from '../../lib/secrets.js'
import type { Clock } from '../../lib/clock.js'
import type { EventLog } from '../events/index.js'
import { contentWriter } from '../content/index.js'
import type { StoreEnv } from '../../types.js'
import type { WebPageFilter, WebPageRow, WebPagesRepository } from './web-pages.repository.js'

export interface WebPageInput { url: string, title?: string | null, type: WebPageRow['type'] }

interface Deps {
  db: Knex
  repo: WebPagesRepository
  events: EventLog
  clock: Clock
  bus: DomainBus
}

declare module '../../lib/domain-events.js' {
  interface DomainEvents {
    /** A web page is being deleted: what goes with it (its placements) goes in the same transaction. */
    'web-page.deleted': { payload: { store: StoreEnv, webPageId: string } }
  }
}

/**
 * The key of a page: origin and path, without query, fragment or trailing slash (the root keeps its slash). The
 * widget sends `location.href` and finds the page whatever tracking parameters the visitor arrived with. Null for
 * anything that is not an http(s) URL.
 */
export function pageKey (url: string): string | null {
  let parsed: URL
  try { parsed = new URL(url) } catch { return null }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null
  const path = parsed.pathname.length > 1 ? parsed.pathname.replace(/\/+$/, '') : parsed.pathname
  return `${parsed.origin}${path || '/'}`
}

export function presentWebPage (row: WebPageRow) {
  return { id: row.id, url: row.url, title: row.title, type: row.type, ...stamps(row) }
}

export function webPagesService ({ db, repo, events, clock, bus }: Deps) {
  // Placements need their page: page writes and placement writes take turns (lib/content.ts).
  const writer = contentWriter({
    db,
    events,
    clock,
    repo,
    singular: 'web_page',
    label: 'Web page',
    present: presentWebPage,
    serialize: lockStoreContent
  })

  function keyed (url: string) {
    const key = pageKey(url)
    if (!key) throw new errors.InvalidRequest('url must be an http(s) URL')
    return { url: key, url_hash: sha256(key) }
  }

  async function checkUnique (row: WebPageRow, trx: Knex) {
    const holder = await repo.byUrlHash(row.store_env_id, row.url_hash, trx)
    if (holder && holder.id !== row.id) throw new errors.Conflict(`The store already has a web page for ${row.url} (${holder.id})`)
  }

  return {
    create (store: StoreEnv, input: WebPageInput) {
      return writer.create(store, { ...keyed(input.url), title: input.title ?? null, type: input.type }, newId('page'), checkUnique)
    },

    list: (storeId: string, query: WebPageFilter) => writer.list(storeId, { type: query.type }, query),

    get: writer.get,

    update (store: StoreEnv, id: string, patch: Partial<WebPageInput>, precondition: Precondition | null = null) {
      return writer.update(
        store,
        id,
        { ...(patch.url === undefined ? {} : keyed(patch.url)), title: patch.title, type: patch.type },
        async (after, before, trx) => {
          if (after.url_hash !== before.url_hash) await checkUnique(after, trx)
        },
        precondition
      )
    },

    remove (store: StoreEnv, id: string, precondition: Precondition | null = null) {
      const deleted = (row: { id: string }, trx: Knex.Transaction) =>
        bus.emit('web-page.deleted', trx, { store, webPageId: row.id }).then(() => {})
      return writer.remove(store, id, deleted, precondition)
    },

    /** The page a visitor is on, by any form of its URL; undefined when the store has none for it. */
    byUrl (storeId: string, url: string): Promise<WebPageRow | undefined> {
      const key = pageKey(url)
      return key ? repo.byUrlHash(storeId, sha256(key)) : Promise.resolve(undefined)
    },

    exists: async (storeId: string, id: string, trx?: Knex) => Boolean(await repo.find(storeId, id, trx))
  }
}
export type WebPagesService = ReturnType<typeof webPagesService>
