import type { Knex } from 'knex'
import { toMs } from './formats.js'

/**
 * Incremental sync (docs/contract/api-conventions.md#incremental-sync: `updatedSince` on every list). A sync list is
 * read oldest change first by (updated_at, id) and continued with a keyset cursor, never an offset: a record changed
 * while a client pages moves past the cursor and comes back on a later page instead of shifting the others (an offset
 * would skip one).
 */
export interface SyncQuery { updatedSince?: string, cursor?: string }

interface Position { at: number, id: string }

const BAD_CURSOR = 'cursor: not a cursor this list gave out; start again with updatedSince'

const CURSOR_TEXT = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/

export function encodeCursor (at: number, id: string | number): string {
  return Buffer.from(`${Number(at)}.${id}`).toString('base64url')
}

export function decodeCursor (cursor: string): Position | null {
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  return match ? { at: Number(match[1]), id: match[2] } : null
}

export function isSyncQuery (query: SyncQuery): boolean {
  return query.updatedSince !== undefined || query.cursor !== undefined
}

export interface SyncPage<T> { total: number, rows: T[], nextCursor: string | null, hasMore: boolean }

/**
 * One page of `base` (which carries the tenant and filters) from the query's position. `total` counts the changes
 * from this position on, this page included. `nextCursor` is the position after the last row returned, given even on
 * the last page, so a client can keep it and resume there next time; `hasMore` says whether to ask again now.
 */
export async function syncPage<T extends { id?: string | number, updated_at: number }> (
  base: Knex.QueryBuilder, query: SyncQuery, limit: number, options: { numericId: boolean, invalid: (message: string) => Error }
): Promise<SyncPage<T>> {
  const from = base.clone()
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor)
    const id = after && options.numericId ? Number(after.id) : after?.id
    if (!after || (options.numericId && !Number.isSafeInteger(id))) throw options.invalid(BAD_CURSOR)
    from.where((q) =>
      q.where('updated_at', '>', after.at).orWhere((same) => same.where('updated_at', after.at).andWhere('id', '>', id as never))
    )
  } else if (query.updatedSince !== undefined) {
    from.where('updated_at', '>=', toMs(query.updatedSince)!)
  }
  const [[{ total }], found] = await Promise.all([
    from.clone().count<Array<{ total: number }>>({ total: '*' }),
    from.clone().orderBy('updated_at', 'asc').orderBy('id', 'asc').limit(limit + 1)
  ])
  const rows = (found as T[]).slice(0, limit)
  const last = rows[rows.length - 1]
  const nextCursor = last ? encodeCursor(last.updated_at, last.id!) : query.cursor ?? null
  return { total: Number(total), rows, nextCursor, hasMore: found.length > limit }
}

export function syncEnvelope<T> (data: T[], page: SyncPage<unknown>, limit: number) {
  return {
    data,
    meta: {
      total: page.total,
      page: 1,
      limit,
      totalPages: Math.ceil(page.total / limit),
      nextCursor: page.nextCursor,
      hasMore: page.hasMore
    }
  }
}
