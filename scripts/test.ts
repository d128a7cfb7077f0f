/**
 * `npm test`: the whole suite twice — on MariaDB/MySQL + Redis and, beside it, on the embedded default (SQLite, memory
 * limits) — each on a freshly migrated database. Ends with the one line CI reads: `N passed, N failed`.
 * Extra arguments go to tap (e.g. `npm test -- test/api-keys/create.test.ts`). EH_TEST_MODES=sqlite runs one mode.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { tmpdir } from 'node:os'
import knex from 'knex'
import { createKnex, migrateLatest } from '../src/db.js'
import { loadSigningKeys } from '../oauth/keys.js'
import { TEST_SECRET_KEY } from '../test/secret.js'

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test'

/**
 * Files whose behaviour cannot differ between the two storage modes run in the MySQL + Redis half only: the browser
 * files drive pages whose routes both halves already test through app.inject, the Zapier app talks to the API over
 * HTTP only (its OAuth storage is covered by test/oauth in both halves), test/config starts `npm start` on the
 * embedded default whatever the half, and the rest never touch storage (the SDK's generated-files check compares
 * files with the document; its client tests run in both halves). The admin form walk sends hostile values through
 * the admin's form layer, which is the same in both; the services behind it get the same edges in both halves from
 * test/input, so it runs once, against MySQL, the stricter store.
 */
const STORAGE_INDEPENDENT = [
  /^test\/admin\/browser-(ci|email|integrations|keys|members|widget)\.test\.ts$/,
  /^connectors\/zapier\/test\//,
  /^test\/openapi\/(document|operations|reference|lint)\.test\.ts$/,
  /^test\/orders\/openapi\.test\.ts$/,
  /^test\/webhooks\/verify\.test\.ts$/,
  /^test\/config\//,
  /^test\/auth\/(permissions|passwords)\.test\.ts$/,
  /^test\/admin\/hostile-forms\.test\.ts$/,
  /^sdk\/test\/generated\.test\.ts$/
]

function testFiles (dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules'))
    .map((f) => join(dir, f))
}

/**
 * Files that keep a process of their own, in the order they start: the browser files and the worker-process tests
 * spend most of their time waiting on other processes (Chromium, spawned workers), so they start first and overlap
 * the bundles. (The Zapier app's tests set its environment variables inside each test, which nothing else reads, so
 * they share bundles like the rest.)
 */
const OWN_PROCESS = [/^test\/admin\/browser-/, /^test\/webhooks\/workers\.test\.ts$/]

/** Every test file of the suite; the embedded half leaves out the storage-independent ones. */
function suiteFiles (mode: string): string[] {
  return [...testFiles('test'), ...testFiles('connectors/zapier/test'), ...testFiles('sdk/test')]
    .filter((f) => mode === 'mysql' || !STORAGE_INDEPENDENT.some((pattern) => pattern.test(f)))
    .sort()
}

const BUNDLES = '.tap/bundles'
/**
 * tap's processes at once for the embedded half while it runs beside the MySQL half (which has package.json's 4).
 * With one, the embedded half now outlasts the MySQL half by about a minute, in which one process runs alone on two
 * cores (a slow 2-core machine, sampled every 2 s: MySQL half done at 240 s, embedded at 305 s); with two, both end
 * together (287 and 292 s in the same session).
 */
const EMBEDDED_JOBS = Number(process.env.EH_TEST_EMBEDDED_JOBS ?? 2)
/** Processes per half: twice tap's jobs, so that one long bundle does not run alone at the end. */
const BUNDLE_COUNT = Number(process.env.EH_TEST_BUNDLES ?? 8)

/**
 * Most of a test file's cost is its process: tap's child, the TypeScript loader and the app's modules (~2.5 s of
 * CPU), more than its tests. So the files run together, a few bundles per half, each file still making its own
 * tenants and apps (test/helper.ts keeps `sharedApp()` per file). A bundle only imports its files, in order; tap
 * counts and names their tests as it would file by file. Files go to the lightest bundle, heaviest first, weighed
 * by their count of tests, so that the bundles end together.
 */
function bundle (files: string[], mode: string): string[] {
  const dir = join(BUNDLES, mode)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const rank = (file: string) => OWN_PROCESS.findIndex((pattern) => pattern.test(file))
  const own = files.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
  const shared = files.filter((file) => rank(file) < 0).map((file) => ({ file, weight: 1 + testsIn(file) }))
  const bundles = Array.from({ length: BUNDLE_COUNT }, () => ({ files: [] as string[], weight: 0 }))
  for (const { file, weight } of shared.sort((a, b) => b.weight - a.weight || a.file.localeCompare(b.file))) {
    const lightest = bundles.reduce((min, b) => b.weight < min.weight ? b : min)
    lightest.files.push(file)
    lightest.weight += weight
  }
  // tap starts files in the order of their names: the numbers put the own-process files first.
  const jobs = [...own.map((file) => [file]), ...bundles.filter((b) => b.files.length > 0).map((b) => b.files.sort())]
  return jobs.map((inJob, i) => {
    const path = join(dir, `${String(i + 1).padStart(2, '0')}-${inJob.length === 1 ? inJob[0].replace(/\.test\.ts$/, '').replace(/\W+/g, '-') : 'bundle'}.test.ts`)
    writeFileSync(path, inJob.map((file) => `import '${relative(dir, file)}'\n`).join(''))
    return path
  })
}

/** A file's weight: its count of tests, or the `bundle-weight: N` it declares (one test that does the work of many). */
function testsIn (file: string): number {
  const text = readFileSync(file, 'utf8')
  const declared = /bundle-weight: (\d+)/.exec(text)
  return declared ? Number(declared[1]) : text.match(/^t\.test\(/gm)?.length ?? 0
}

const modes = (process.env.EH_TEST_MODES ?? 'mysql,sqlite').split(',').filter(Boolean)
/** A folder named on the command line stands for its test files (tap alone would pick only some of them). */
const tapArgs = process.argv.slice(2).flatMap((arg) => !arg.startsWith('-') && statSync(arg, { throwIfNoEntry: false })?.isDirectory() ? testFiles(arg).sort() : [arg])

async function resetMysql () {
  const url = new URL(DATABASE_URL)
  const name = url.pathname.slice(1)
  if (!/^\w+$/.test(name)) throw new Error(`unexpected test database name: ${name}`)
  const server = knex({ client: 'mysql2', connection: { host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } })
  await server.raw(`DROP DATABASE IF EXISTS \`${name}\``)
  await server.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  await server.destroy()
  const db = createKnex({ databaseUrl: DATABASE_URL, dataDir: tmpdir() })
  await migrateLatest(db)
  await db.destroy()
}

/**
 * The embedded template: migrated, with the OAuth signing key made once. Each test process works on its own copy
 * (test/helper.ts), and would otherwise generate a key pair in every file as it builds its first app.
 */
async function prepareSqlite (): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'evidence-hub-test-'))
  const db = createKnex({ dataDir: dir })
  await migrateLatest(db)
  await loadSigningKeys(db, TEST_SECRET_KEY, Date.now())
  await db.destroy()
  return dir
}

function listResults (dir: string): string[] {
  let out: string[] = []
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) out = out.concat(listResults(path))
    else if (entry.endsWith('.tap')) out.push(path)
  }
  return out
}

/**
 * Counts each file's top-level tests (one behaviour each); a file that failed without a failing test counts once.
 * `only`: the results of one half's bundles (tap names each result after its test file's path).
 */
function countResults (only?: string): { passed: number, failed: number } {
  let passed = 0
  let failed = 0
  const dir = '.tap/test-results'
  for (const file of listResults(dir).filter((path) => !only || path.includes(only))) {
    const text = readFileSync(file, 'utf8')
    const ok = text.match(/^ok \d+/gm)?.length ?? 0
    const notOk = text.match(/^not ok \d+/gm)?.length ?? 0
    passed += ok
    failed += notOk
    if (notOk === 0 && /^# (fail|Subtest failed)|^Bail out!/m.test(text)) failed++
  }
  return { passed, failed }
}

function seconds (since: number): number {
  return Math.round((Date.now() - since) / 1000)
}

const started = Date.now()
let passed = 0
let failed = 0
const titles: Record<string, string> = { mysql: 'MySQL/MariaDB + Redis', sqlite: 'embedded default: SQLite + in-memory limits' }

/** A half's environment: MySQL reset and migrated, or the embedded run's migrated SQLite template. */
async function prepare (mode: string): Promise<Record<string, string | undefined>> {
  const env: Record<string, string | undefined> = { ...process.env, EH_TEST_DB: mode }
  // The embedded run's EH_TEST_DATA_DIR is a migrated template: test/helper.ts gives each test process its own copy.
  if (mode === 'mysql') await resetMysql()
  else env.EH_TEST_DATA_DIR = await prepareSqlite()
  return env
}

/** `took`: the half's own seconds (a half that ran beside another is reported once both have ended). */
function finish (mode: string, env: Record<string, string | undefined>, status: number | null, took: number) {
  const counts = countResults(tapArgs.length === 0 ? join(BUNDLES, mode) : undefined)
  if (status !== 0 && counts.failed === 0) counts.failed = 1
  console.log(`${mode}: ${counts.passed} passed, ${counts.failed} failed in ${took} s`)
  passed += counts.passed
  failed += counts.failed
  if (env.EH_TEST_DATA_DIR) rmSync(env.EH_TEST_DATA_DIR, { recursive: true, force: true })
}

rmSync('.tap/test-results', { recursive: true, force: true })
if (tapArgs.length === 0 && modes.length > 1) {
  /**
   * The whole suite: both halves at once. Neither shares state with the other (the embedded half has no Redis and
   * its own SQLite copies), and the MySQL half leaves a core idle much of the time (browsers, spawned workers, its
   * last long bundles), which the embedded half fills. The embedded half's report is printed after the MySQL one's,
   * so each reads as a whole; it runs fewer processes at once, so the MySQL half keeps most of the machine.
   */
  const envs = await Promise.all(modes.map(prepare))
  // tap rebuilds its Test class on the first run after an install when the configured plugins differ from its
  // defaults (they do here); two runs starting together would both rebuild it under each other. It rebuilds before
  // it prints anything, so the first half's first output is the signal for the others to start.
  let started = () => {}
  const firstOutput = new Promise<void>((resolve) => { started = resolve })
  const runs = await Promise.all(modes.map(async (mode, i) => {
    if (i > 0) await firstOutput
    const files = ['--timeout=600', ...(i > 0 ? [`--jobs=${EMBEDDED_JOBS}`] : []), ...bundle(suiteFiles(mode), mode)]
    const since = Date.now()
    const child = spawn('npx', ['tap', ...files], { stdio: i === 0 ? ['ignore', 'pipe', 'inherit'] : ['ignore', 'pipe', 'pipe'], env: envs[i] })
    const output: Buffer[] = []
    if (i === 0) console.log(`\n=== ${titles[mode]} ===`)
    child.stdout!.on('data', (chunk: Buffer) => {
      if (i === 0) {
        started()
        process.stdout.write(chunk)
      } else {
        output.push(chunk)
      }
    })
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk))
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve))
    started()
    return { mode, env: envs[i], status, took: seconds(since), output }
  }))
  for (const [i, run] of runs.entries()) {
    if (i > 0) {
      console.log(`\n=== ${titles[run.mode]} (ran beside the first half) ===`)
      process.stdout.write(Buffer.concat(run.output))
    }
    finish(run.mode, run.env, run.status, run.took)
  }
} else {
  for (const mode of modes) {
    const env = await prepare(mode)
    console.log(`\n=== ${titles[mode]} ===`)
    rmSync('.tap/test-results', { recursive: true, force: true })
    const since = Date.now()
    // With files named, tap runs just those, one process each.
    const files = tapArgs.length === 0 ? ['--timeout=600', ...bundle(suiteFiles(mode), mode)] : []
    const run = spawnSync('npx', ['tap', ...tapArgs, ...files], { stdio: 'inherit', env })
    finish(mode, env, run.status, seconds(since))
  }
}
console.log(`suite wall time: ${seconds(started)} s`)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed > 0 ? 1 : 0)
