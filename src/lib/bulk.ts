import { AjvCompiler } from '@fastify/ajv-compiler'
import type { Knex } from 'knex'
import type { TObject, TSchema, Static } from '@sinclair/typebox'
import { addApiFormats } from './formats.js'
import { firstUnstorable } from './storable.js'

/** db.ts's `isMysql`, asked here directly: db.ts uses lib/ (masked-url.ts), and folders import one way only. */
function isMysql (db: Knex): boolean {
  // Forced true on SQLite, FORCE INDEX is a syntax error every SQLite test of a bulk route meets.
  // Stryker disable next-line ConditionalExpression: this file's mutants run on MySQL, where it is true
  return (db.client as { config: { client: string } }).config.client === 'mysql2'
}

/** docs/contract/api-conventions.md#bulk-upserts: one entry per refused item; the rest of the batch is stored. */
export interface ItemError { index: number, platformId: string | null, code: string, message: string }

export interface BulkResult { received: number, upserted: number, failed: number, errors: ItemError[] }

export interface CheckedItems<T> { valid: Array<{ index: number, item: T }>, errors: ItemError[] }

interface AjvIssue { instancePath: string, message?: string, params: Record<string, unknown> }
type ItemValidator = ((item: unknown) => boolean) & { errors?: AjvIssue[] | null }

/**
 * Items are checked by the same ajv, options and formats as the route validator of JSON bodies (app.ts), so an
 * item is judged as the same object sent alone would be: lengths in characters (as the columns count them, a
 * 4-byte emoji is one), dates by lib/formats.ts.
 */
// Stryker disable next-line BooleanLiteral: no item schema of a bulk route declares a default
const compileItem = (AjvCompiler() as unknown as (external: object, options: object) => (route: { schema: object }) => ItemValidator)(
  {}, { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true }, plugins: [], onCreate: addApiFormats })

/** What a schema refuses in a value: the dotted path of the field (empty for the whole value) and why. */
export interface Problem { path: string, message: string }

function problemIn (issue: AjvIssue): Problem {
  const extra = issue.params.missingProperty ?? issue.params.additionalProperty
  const path = [issue.instancePath.slice(1).replace(/\//g, '.'), extra].filter(Boolean).join('.')
  // Stryker disable next-line StringLiteral: ajv names every problem it reports
  return { path, message: issue.message ?? 'is invalid' }
}

function describe (problem: Problem): string {
  return `${problem.path || 'item'}: ${problem.message}`
}

/**
 * The first thing `schema` refuses in a value, judged as a JSON body of the API would be (the same checks as the
 * items of a batch, below), or null. For forms that hand their input to an API service (the admin pages).
 */
export function firstProblem (schema: TSchema): (value: unknown) => Problem | null {
  // Compiled on first use, not when the module that declares the check loads: the services declare several, and a
  // process that never checks an item (the operator CLI) would spend most of its start compiling them.
  let validate: ItemValidator | undefined
  return (value) => {
    validate ??= compileItem({ schema })
    if (!validate(value)) return problemIn(validate.errors![0])
    const unstorable = firstUnstorable(value)
    return unstorable ? problemIn({ ...unstorable, params: {} }) : null
  }
}

/**
 * Checks each item of a batch on its own against `schema`: a bad item becomes an `invalid_item` error with its
 * index; with `unique` (default), a key repeated inside the batch becomes `duplicate_item` (the first one is kept).
 */
export function itemChecker<S extends TObject> (schema: S, key: string, options: { unique?: boolean } = {}) {
  const unique = options.unique ?? true
  const check = firstProblem(schema)
  const problemOf = (item: unknown): string | null => {
    const problem = check(item)
    return problem ? describe(problem) : null
  }
  return (items: unknown[]): CheckedItems<Static<S>> => {
    const valid: Array<{ index: number, item: Static<S> }> = []
    const errors: ItemError[] = []
    const seen = new Map<string, number>()
    items.forEach((item, index) => {
      // Stryker disable next-line ConditionalExpression: reading a field of a string, number or boolean item gives undefined too
      const raw = item && typeof item === 'object' ? (item as Record<string, unknown>)[key] : undefined
      const platformId = typeof raw === 'string' ? raw : null
      const problem = problemOf(item)
      if (problem) {
        errors.push({ index, platformId, code: 'invalid_item', message: problem })
        return
      }
      const first = unique ? seen.get(platformId!) : undefined
      if (first !== undefined) {
        errors.push({ index, platformId, code: 'duplicate_item', message: `${key} repeats item ${first} of this batch` })
        return
      }
      seen.set(platformId!, index)
      valid.push({ index, item: item as Static<S> })
    })
    return { valid, errors }
  }
}

interface LooseIssue { keyword: string, instancePath: string, schemaPath: string, params: Record<string, unknown>, message: string }

/**
 * Route validator for bulk bodies: only the wrapper (`{ <field>: [objects] }`) is checked here, so one bad item
 * never refuses the whole batch; the full item schema stays in the route schema for the OpenAPI document. Names
 * the body and query schemas do not declare are refused, as every route does (plugins/strict-input.ts).
 */
export function bulkBodyValidator (field: string) {
  return ({ httpPart, schema }: { httpPart?: string, schema?: unknown }) => (data: unknown) => {
    // fastify asks for a validator only for the parts a route has a schema for: bulk routes have a body and at most a query.
    // Stryker disable next-line all: no other part reaches here
    if (httpPart !== 'body' && httpPart !== 'querystring') return { value: data }
    const issues: LooseIssue[] = []
    // Stryker disable next-line ConditionalExpression: a query is always an object (the other half of the condition)
    if (httpPart === 'body' && (!data || typeof data !== 'object' || Array.isArray(data))) {
      // The answer words a problem from its keyword and params, or else from its message: either alone says it.
      // Stryker disable next-line StringLiteral: keyword and message each say it alone
      issues.push({ keyword: 'type', instancePath: '', schemaPath: '#/type', params: { type: 'object' }, message: 'must be an object' })
    } else if (httpPart === 'body' && !Array.isArray((data as Record<string, unknown>)[field])) {
      // Stryker disable StringLiteral: as above, keyword and message each say it alone
      issues.push({
        keyword: 'type',
        instancePath: `/${field}`,
        schemaPath: `#/properties/${field}/type`,
        params: { type: 'array' },
        message: 'must be an array'
      })
      // Stryker restore StringLiteral
    }
    // Stryker disable next-line OptionalChaining: a bulk route always has a body schema
    const known = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}
    for (const name of data && typeof data === 'object' && !Array.isArray(data) ? Object.keys(data) : []) {
      if (!(name in known)) {
        // Stryker disable StringLiteral: the answer words this problem from its keyword; schemaPath and message are ajv's shape only
        issues.push({
          keyword: 'additionalProperties',
          instancePath: '',
          schemaPath: '#/additionalProperties',
          params: { additionalProperty: name },
          message: 'must NOT have additional properties'
        })
        // Stryker restore StringLiteral
      }
    }
    return issues.length ? { error: issues } : { value: data }
  }
}

const LOCK_RACE_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT'])

/** A transaction rolled back whole because another held what it needed: sending it again is the cure. */
export function lostLockRace (err: unknown): boolean {
  // Stryker disable next-line StringLiteral: no lock race code is the fallback's text, whatever it is
  return LOCK_RACE_CODES.has((err as { code?: string } | null)?.code ?? '')
}

/** Deadlocks between concurrent batches over the same keys are retried; each attempt is a whole transaction. */
export async function withDeadlockRetry<T> (work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (err) {
      if (!lostLockRace(err) || attempt >= attempts) throw err
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20))
    }
  }
}

function norm (value: unknown): string | null {
  if (value == null) return null
  if (typeof value === 'boolean') return value ? '1' : '0'
  return String(value)
}

/** True when every listed column holds the same value (booleans and numbers compared as the database returns them). */
export function sameColumns (a: object, b: object, columns: readonly string[]): boolean {
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  return columns.every((column) => norm(left[column]) === norm(right[column]))
}

export interface BulkSteps<I, R> {
  storeId: string
  keyOf: (item: I) => string
  /** Reads the stored rows of these keys with `lockForWrite`, so what "changed" is judged against stays current. */
  load: (keys: string[], trx: Knex.Transaction) => Promise<Map<string, R>>
  toRows: (items: I[], existing: Map<string, R>, trx: Knex.Transaction) => Promise<R[]>
  /** Columns whose equality means "nothing to do" for an item. */
  columns: readonly string[]
  /** Stores the changed rows, then appends their events (the event log takes the store's event lock: keep it last). */
  write: (changed: R[], existing: Map<string, R>, trx: Knex.Transaction) => Promise<void>
  /**
   * Runs first in the transaction, for checks against other tables that must hold when the batch commits (a product's
   * categories exist): answers the errors of the items it refuses, which are then left out of the batch.
   */
  admit?: (valid: CheckedItems<I>['valid'], trx: Knex.Transaction) => Promise<ItemError[]>
}

/**
 * One batch in one transaction: items identical to what is stored are left alone (an identical re-send changes
 * nothing and appends no event); the others are written with every column, so an omitted field is cleared.
 *
 * Locking: the batch locks its own item rows, in key order, and takes the store's event lock only when it appends
 * the events, just before commit (an `admit` step may lock the store first, as products naming categories do).
 * Batches of one store over disjoint keys therefore run side by side up to the append; batches sharing keys queue
 * on the shared rows, so the later one sees (and replaces) the earlier one's values, and the event log stays
 * commit-ordered because ids are still allocated under the store lock (events.repository.ts).
 * MySQL runs it under READ COMMITTED: a locking read of a missing key then takes no gap lock, so batches inserting
 * new keys side by side do not deadlock on each other's gaps; a deadlock that still happens is retried whole.
 */
export async function applyBulk<I, R> (db: Knex, checked: CheckedItems<I>, received: number, steps: BulkSteps<I, R>): Promise<BulkResult> {
  let items: I[] = []
  let refused: ItemError[] = []
  // Stryker disable next-line ConditionalExpression,EqualityOperator: with no valid item the transaction reads and writes nothing
  if (checked.valid.length > 0) {
    await withDeadlockRetry(() => db.transaction(async (trx) => {
      // Decided afresh by each attempt of the transaction.
      // Stryker disable next-line ArrayDeclaration: every bulk route with categories or other tables to check has an admit step
      refused = steps.admit ? await steps.admit(checked.valid, trx) : []
      const left = new Set(refused.map((e) => e.index))
      const kept = checked.valid.filter((v) => !left.has(v.index)).map((v) => v.item)
      // Keys in a fixed order: concurrent batches over the same rows lock them in the same order.
      // The order only decides which of two batches waits (a deadlock is retried whole) and the order of a batch's events.
      // Stryker disable next-line all: neither is a contract
      items = kept.sort((a, b) => (steps.keyOf(a) < steps.keyOf(b) ? -1 : 1))
      // Stryker disable next-line ConditionalExpression: with no item the steps below read and write nothing
      if (items.length === 0) return
      const existing = await steps.load(items.map(steps.keyOf), trx)
      const rows = await steps.toRows(items, existing, trx)
      const changed = rows.filter((row, i) => {
        const before = existing.get(steps.keyOf(items[i]))
        return !before || !sameColumns(before as object, row as object, steps.columns)
      })
      // Stryker disable next-line ConditionalExpression,EqualityOperator: writing no rows changes nothing
      if (changed.length > 0) await steps.write(changed, existing, trx)
    }, isMysql(db) ? { isolationLevel: 'read committed' } : {}))
  }
  const errors = [...checked.errors, ...refused].sort((a, b) => a.index - b.index)
  return { received, upserted: items.length, failed: errors.length, errors }
}

/**
 * The rows of one store whose `keyColumn` is one of `keys`, read through the table's (store_env_id, `keyColumn`, …)
 * index on MySQL, named as knex names it (`suffix`: what follows the key column in the name). Past 200 keys in one
 * IN list (eq_range_index_dive_limit) MariaDB estimates from statistics instead of probing the index and, with stale
 * ones, walks every row of the store: as a bulk upsert's locking read that locked the store's whole table and queued
 * every writer behind it (bench:bulk: 0.20x the raw upsert before the index was named here, 0.36x after).
 */
export function rowsByKeys<Row extends object> (
  trx: Knex,
  table: string,
  storeId: string,
  keyColumn: string,
  keys: readonly string[],
  // Stryker disable next-line StringLiteral: MariaDB takes an unambiguous prefix of an index name, and the name without its suffix is one
  suffix = 'unique'
): Knex.QueryBuilder<Row, Row[]> {
  const from = isMysql(trx)
    ? trx.from<Row, Row[]>(trx.raw('?? FORCE INDEX (??)', [table, `${table}_store_env_id_${keyColumn}_${suffix}`]))
    : trx<Row, Row[]>(table)
  return from.where('store_env_id', storeId).whereIn(keyColumn, keys as string[])
}

/**
 * Makes a read of rows about to be written a locking read (MySQL, FOR UPDATE): InnoDB locks them in the order of
 * the index it walks, the same for every batch, and the read sees the latest committed values, not a snapshot.
 * SQLite has a single writer, so its transaction already is the lock.
 */
export function lockForWrite<Q extends Knex.QueryBuilder> (query: Q, lock: boolean): Q {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: locking a read no one writes after only holds rows longer
  if (lock && isMysql(query as unknown as Knex)) query.forUpdate()
  return query
}

/**
 * Locks a store's row until the transaction ends (MySQL; SQLite's single writer already is the lock), for writes
 * that must take turns per store. Taken before any plain read, it also makes the transaction's snapshot (taken at
 * its first plain read) come after the writer before it.
 */
export async function lockStore (trx: Knex.Transaction, storeId: string): Promise<void> {
  await lockForWrite(trx('store_envs').where({ id: storeId }), true).first('id')
}

/** A shared locking read (MySQL): the rows cannot change or go until the transaction ends; other such reads share them. */
export function lockForShare<Q extends Knex.QueryBuilder> (query: Q): Q {
  // Stryker disable next-line ConditionalExpression: forced true, SQLite's knex leaves the shared lock out
  if ((query.client as unknown as { config: { client: string } }).config.client === 'mysql2') query.forShare()
  return query
}
