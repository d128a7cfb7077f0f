import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Writable } from 'node:stream'
import { tmpdir } from 'node:os'
import tap, { type Test } from 'tap'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppDeps } from '../src/app.js'
import { validateConfig, type Config } from '../src/config.js'
import { base62 } from '../src/lib/ids.js'
import { argon2Hasher } from '../src/lib/passwords.js'
import { TEST_SECRET_KEY } from './secret.js'

/**
 * The suite runs twice (scripts/test.ts): EH_TEST_DB=mysql against MariaDB + Redis, and EH_TEST_DB=sqlite on the
 * embedded default. Migrations run once per run, before the files; each test makes its own tenant.
 */
export const onMysql = process.env.EH_TEST_DB !== 'sqlite'
if (!onMysql) useOwnSqliteCopy()

/**
 * SQLite has one writer: test files in parallel processes on one file fail a deferred transaction that upgrades to
 * a write (SQLITE_BUSY_SNAPSHOT ignores busy_timeout). So each test process works on its own copy of the template
 * database scripts/test.ts migrated (EH_TEST_DATA_DIR), and the embedded half runs its files in parallel too.
 * The copy's directory replaces EH_TEST_DATA_DIR for this process and the processes it spawns (CLI runs, worker
 * processes), which share it: EH_TEST_DATA_COPY marks it as already a copy.
 */
function useOwnSqliteCopy () {
  const template = process.env.EH_TEST_DATA_DIR
  if (!template || process.env.EH_TEST_DATA_COPY) return
  const own = join(template, `process-${process.pid}`)
  mkdirSync(own, { recursive: true })
  const file = join(template, 'evidence-hub.sqlite')
  if (existsSync(file)) copyFileSync(file, join(own, 'evidence-hub.sqlite'))
  process.env.EH_TEST_DATA_DIR = own
  process.env.EH_TEST_DATA_COPY = '1'
}

/** argon2id at its lowest cost: each test makes tenants with passwords, and production's 64 MiB hash takes ~130 ms. */
export const testHasher = argon2Hasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 })

/** The algorithm and cost a PHC-format hash records, e.g. `{ type: 'argon2id', m: 65536, t: 3, p: 4 }`. */
export function costOf (hash: string): Record<string, string | number> {
  const [, type, , params] = hash.split('$')
  return { type, ...Object.fromEntries(params.split(',').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)])) }
}

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test'
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

export function testConfig (overrides: Partial<Config> = {}): Config {
  return validateConfig({
    port: 0,
    host: '127.0.0.1',
    publicUrl: 'http://127.0.0.1:3000',
    databaseUrl: onMysql ? TEST_DATABASE_URL : undefined,
    redisUrl: onMysql ? TEST_REDIS_URL : undefined,
    // The suite keeps both cores busy: a process starved of CPU for a few seconds would fail production's 5 s wait.
    databaseConnectTimeoutMs: 60_000,
    dataDir: process.env.EH_TEST_DATA_DIR ?? join(tmpdir(), 'evidence-hub-test'),
    logLevel: 'silent',
    trustProxy: false,
    secretKey: TEST_SECRET_KEY,
    webhookAllowPrivate: true,
    mailFrom: 'Evidence Hub <no-reply@localhost>',
    reviewRequestDelayHours: 72,
    workers: false,
    bigcommerceApiUrl: 'http://127.0.0.1:9',
    bigcommerceApiTimeoutMs: 2000,
    ...overrides
  })
}

/**
 * The arguments that start one of the tree's TypeScript entry points (e.g. `src/server.ts`) in a process of its own:
 * its compiled copy when the suite runs compiled (scripts/compile-tests.ts), which spares the child tsx's start-up,
 * else through tsx.
 */
export function nodeEntry (path: string): string[] {
  if (!import.meta.url.endsWith('.js')) return ['--import', 'tsx', path]
  return ['--enable-source-maps', fileURLToPath(new URL(`../${path.replace(/\.ts$/, '.js')}`, import.meta.url))]
}

/** A clock the test moves by hand. */
export function manualClock (start = Date.parse('2026-11-23T12:00:00Z')) {
  let now = start
  const clock = () => now
  clock.advance = (ms: number) => { now += ms }
  clock.set = (ms: number) => { now = ms }
  return clock
}

export interface BuildOptions extends AppDeps {
  config?: Partial<Config>
  /**
   * Extra routes registered before `ready`, e.g. probes such as `GET /v1/reviews/probe` that exercise the auth
   * pipeline for a resource before its module exists. They go through the same hooks as the real routes.
   */
  routes?: (app: FastifyInstance) => Promise<void>
}

/** Two cores shared by both halves of the suite and Chromium: a plugin can wait more than fastify's 10 s for CPU. */
const PLUGIN_TIMEOUT_MS = 120_000

export async function build (t: Test, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config, routes, ...deps } = options
  // EH_TEST_LOG=1 prints the apps' error logs (a 500's cause) while a test is looked into.
  const app = await buildApp(testConfig(config), {
    logger: process.env.EH_TEST_LOG ? { level: 'error' } : false,
    redisPrefix: `eh:test:${base62(10)}:`,
    hash: testHasher,
    pluginTimeout: PLUGIN_TIMEOUT_MS,
    ...deps
  })
  t.teardown(() => app.close())
  if (routes) await app.register(routes)
  await app.ready()
  return app
}

/** An app whose log lines (info and up, the request lines included) are kept in `lines`, for tests of what is logged. */
export async function loggedApp (t: Test, options: BuildOptions = {}): Promise<{ app: FastifyInstance, lines: string[] }> {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
  const app = await build(t, { ...options, logger: { level: 'info', stream } } as BuildOptions)
  return { app, lines }
}

let shared: { file: string, app: Promise<FastifyInstance> } | undefined

/** The test file that called the function calling this one (a bundle runs several files in one process). */
function callerFile (): string {
  const frame = new Error().stack?.split('\n')[3] ?? ''
  return /\(?((?:file:\/\/)?\/[^():]+)/.exec(frame)?.[1] ?? frame
}

/**
 * One app for the tests of a file that do not change it (no clock, config, deps or routes of their own): building
 * an app compiles every route's schemas, and each test makes its own tenant anyway. One per calling file, even when
 * several files share a process (scripts/test.ts), so that one file's per-IP counts never reach another's. A bundle's
 * files run one after the other, so the previous file's app is closed when the next file asks for its own (its
 * connections would otherwise stay open to the end of the bundle); the last one closes when the process's tests end.
 * A test that closes the app, moves time or counts per-IP limits builds its own. Call it inside a test, never at a
 * file's top level: a bundle imports all its files before any test runs, so a top-level call would take the app of
 * the file imported next.
 */
export function sharedApp (): Promise<FastifyInstance> {
  const file = callerFile()
  if (shared?.file !== file) {
    const previous = shared?.app
    shared = { file, app: (previous ? previous.then((app) => app.close(), () => {}) : Promise.resolve()).then(() => build(tap)) }
  }
  return shared.app
}

/** The SQL `app` sends to its database from now until the test ends, only statements `matching` if given. */
export function statementsOf (t: Test, app: FastifyInstance, matching?: RegExp): string[] {
  const statements: string[] = []
  const listen = (query: { sql: string }) => { if (!matching || matching.test(query.sql)) statements.push(query.sql) }
  app.db.on('query', listen)
  t.teardown(() => { app.db.off('query', listen) })
  return statements
}

/** The store's logged events whose type starts with `prefix`, oldest first: type, parsed data, and the data as stored. */
export async function eventsOf (
  app: FastifyInstance,
  storeId: string,
  prefix: string
): Promise<Array<{ type: string, data: any, raw: string }>> {
  const rows: Array<{ type: string, data: string }> = await app.db('events').where({ store_env_id: storeId }).where(
    'type',
    'like',
    `${prefix}%`
  ).orderBy('id')
  return rows.map((row) => ({ type: row.type, data: JSON.parse(row.data), raw: row.data }))
}

export interface Call extends Omit<InjectOptions, 'headers'> {
  key?: string
  store?: string | null
  headers?: Record<string, string>
}

/** An authenticated call: `key` as a Bearer token, `store` as x-store-env-id. */
export function call (app: FastifyInstance, { key, store, headers, ...rest }: Call): Promise<LightMyRequestResponse> {
  return app.inject({
    ...rest,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(store ? { 'x-store-env-id': store } : {}),
      ...headers
    }
  } as InjectOptions)
}

/** `GET` and `POST /v1/<resource>/probe` answering `{ ok: true }`, with extra route config (e.g. `{ plan: 'pro' }`). */
export function probeRoutes (resources: readonly string[], config: Record<string, unknown> = {}) {
  return async (app: FastifyInstance) => {
    for (const resource of resources) {
      for (const method of ['GET', 'POST'] as const) {
        app.route({ method, url: `/v1/${resource}/probe`, config, handler: async () => ({ ok: true }) })
      }
    }
  }
}

/**
 * An answer's JSON body without the `requestId` every error body carries (the request's own id, which test/errors
 * checks against the header), for comparing error bodies whole.
 */
export function errorBody (res: { json: () => unknown }): Record<string, unknown> {
  const { requestId: _requestId, ...rest } = res.json() as Record<string, unknown>
  return rest
}
