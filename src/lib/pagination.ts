import type { Knex } from 'knex'

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100
/**
 * docs/contract/api-conventions.md#pagination: a bounded page keeps the offset a small exact integer on every database.
 */
export const MAX_PAGE = 10_000_000

export interface PageQuery { page?: number, limit?: number }
export interface Page { page: number, limit: number, offset: number }

/** docs/contract/api-conventions.md#pagination: a larger limit is clamped, and meta.limit says what was used. */
export function toPage (query: PageQuery): Page {
  const page = Math.min(MAX_PAGE, Math.max(1, Math.floor(query.page ?? 1)))
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(query.limit ?? DEFAULT_LIMIT)))
  return { page, limit, offset: (page - 1) * limit }
}

export function envelope<T> (data: T[], total: number, page: Page) {
  return {
    data,
    meta: { total, page: page.page, limit: page.limit, totalPages: Math.ceil(total / page.limit) }
  }
}

/**
 * The count-plus-page query every list runs: the total of `base`'s rows, then the page of them that `order` sorts
 * (and joins or selects). `base` carries only the filters, so the count stays a plain count.
 */
export async function countAndPage<T> (
  base: Knex.QueryBuilder,
  page: { offset: number, limit: number },
  order: (query: Knex.QueryBuilder) => Knex.QueryBuilder
): Promise<{ total: number, rows: T[] }> {
  const [{ total }] = await base.clone().count<Array<{ total: number }>>({ total: '*' })
  const rows = await order(base.clone()).offset(page.offset).limit(page.limit)
  return { total: Number(total), rows: rows as T[] }
}
