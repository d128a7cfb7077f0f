/**
 * `npm test`: the whole suite twice — on MariaDB/MySQL + Redis and, beside it, on the embedded default (SQLite, memory
 * limits) — each on a freshly migrated database. Ends with the one line CI reads: `N passed, N failed`.
 * Extra arguments go to tap (e.g. `npm test -- test/api-keys/create.test.ts`). EH_TEST_MODES=sqlite runs one mode.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { compileTests } from './compile-tests.js'
import { prepareSqlite, resetMysql } from './test-databases.js'

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test'

/**
 * Files whose behaviour cannot differ between the two storage modes run in the MySQL + Redis half only: the browser
 * files drive pages whose routes both halves already test through app.inject, the Zapier app and the n8n nodes talk
 * to the API over HTTP only (their OAuth storage is covered by test/oauth in both halves), test/config starts `npm start` on the
 * embedded default whatever the half, and the rest never touch storage (the SDK's generated-files check compares
 * files with the document, its retry tests talk to a stub server and its package test builds and imports it; its
 * client tests run in both halves). The admin form walk sends hostile values through
 * the admin's form layer, which is the same in both; the services behind it get the same edges in both halves from
 * test/input, so it runs once, against MySQL, the stricter store.
 */
const STORAGE_INDEPENDENT = [
  /^test\/admin\/browser-(ci|email|integrations|keys|members|widget)\.test\.ts$/,
  /^connectors\/zapier\/test\//,
  /^connectors\/n8n\/test\//,
  /^test\/openapi\/(document|operations|reference|lint|browser-docs)\.test\.ts$/,
  /^test\/orders\/openapi\.test\.ts$/,
  /^test\/webhooks\/verify\.test\.ts$/,
  /^test\/config\//,
  /^test\/auth\/(permissions|passwords)\.test\.ts$/,
  /^test\/lib\//,
  /^test\/admin\/hostile-forms\.test\.ts$/,
  /^sdk\/test\/(generated|package|retry)\.test\.ts$/
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
const OWN_PROCESS = [/^test\/admin\/browser-/, /^test\/openapi\/browser-/, /^test\/webhooks\/workers\.test\.ts$/]

/** Every test file of the suite; the embedded half leaves out the storage-independent ones. */
function suiteFiles (mode: string): string[] {
  return [...testFiles('test'), ...testFiles('connectors/zapier/test'), ...testFiles('connectors/n8n/test'), ...testFiles('sdk/test')]
    .filter((f) => mode === 'mysql' || !STORAGE_INDEPENDENT.some((pattern) => pattern.test(f)))
    .sort()
}

/** The suite's JavaScript copy of the tree (scripts/compile-tests.ts); the bundles are written into it. */
const COMPILED = '.tap/js'
const RESULTS = '.tap/test-results'
/**
 * Processes at once for a half (the MySQL one, or either run alone): twice the cores, since they often wait on
 * MariaDB, Chromium or processes they start.
 */
const JOBS = 4
/**
 * Processes at once for the embedded half while it runs beside the MySQL half. With one, the embedded half
 * outlasted the MySQL half by about a minute, in which one process ran alone on two cores; with two, both end
 * together.
 */
const EMBEDDED_JOBS = Number(process.env.EH_TEST_EMBEDDED_JOBS ?? 2)
/** Processes per half: twice its jobs, so that one long bundle does not run alone at the end. */
const BUNDLE_COUNT = Number(process.env.EH_TEST_BUNDLES ?? 8)
/**
 * A process's limit: tap fails its root test at TAP_TIMEOUT, and a process still alive a minute later is killed. It
 * only stops a hung process: a bundle takes about 8 minutes on two quiet cores, and a busy machine has taken a
 * bundle past 10, which then failed the tests it had not finished although none of them failed.
 */
const TIMEOUT_SECONDS = 1200
/**
 * A failing test's stack points at its TypeScript line (the compiled files carry their source maps).
 * EH_TEST_CPU_PROF=<dir> writes a CPU profile of each process there, to see where the suite's time goes.
 */
const CPU_PROFILES = process.env.EH_TEST_CPU_PROF
const NODE_ARGS = [
  '--enable-source-maps',
  // A test process allocates fast (apps, requests, fixtures): a larger young generation scavenges less often, and a
  // bundle took 9 % less CPU with it (bench-free measure: one bundle alone, `/usr/bin/time`, 35.5 s → 32.3 s of user).
  '--max-semi-space-size=64',
  ...(CPU_PROFILES ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILES}`, '--cpu-prof-interval=2000'] : [])
]

/**
 * Most of a test file's cost is its process: node and the app's modules (~1.5 s of CPU), more than its tests. So
 * the files run together, a few bundles per half, each file still making its own tenants and apps (test/helper.ts
 * keeps `sharedApp()` per file). A bundle only imports its files' compiled copies, in order; each file's tests
 * keep their names. Files go to the lightest bundle, heaviest first, weighed by their count of tests, so that the
 * bundles end together.
 */
function bundle (files: string[], mode: string): string[] {
  const dir = join(COMPILED, '.bundles', mode)
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
  // The own-process files start first: the numbers keep that order in the report.
  const jobs = [...own.map((file) => [file]), ...bundles.filter((b) => b.files.length > 0).map((b) => b.files.sort())]
  return jobs.map((inJob, i) => {
    const path = join(dir, `${String(i + 1).padStart(2, '0')}-${inJob.length === 1 ? inJob[0].replace(/\.test\.ts$/, '').replace(/\W+/g, '-') : 'bundle'}.test.js`)
    const imports = inJob.map((file) => `import '${relative(dir, join(COMPILED, file)).replace(/\.ts$/, '.js')}'\n`)
    writeFileSync(path, ["import tap from 'tap'\n", ...imports, EXIT_WHEN_DONE].join(''))
    return path
  })
}

/**
 * A test that fails before its teardown is registered can leave a server or a pool open, and the process would
 * then wait for tap's timeout, ten minutes, after its last test. Once the tests have ended, it gets ten seconds.
 */
const EXIT_WHEN_DONE = `tap.teardown(() => {
  setTimeout(() => {
    console.error('# open handles kept this process alive 10 s after its tests ended')
    process.exit()
  }, 10_000).unref()
})
`

/** A file's weight: its count of tests, or the `bundle-weight: N` it declares (one test that does the work of many). */
function testsIn (file: string): number {
  const text = readFileSync(file, 'utf8')
  const declared = /bundle-weight: (\d+)/.exec(text)
  return declared ? Number(declared[1]) : text.match(/^t\.test\(/gm)?.length ?? 0
}

const modes = (process.env.EH_TEST_MODES ?? 'mysql,sqlite').split(',').filter(Boolean)
/** A folder named on the command line stands for its test files (tap alone would pick only some of them). */
const tapArgs = process.argv.slice(2).flatMap((arg) =>
  !arg.startsWith('-') && statSync(arg, { throwIfNoEntry: false })?.isDirectory() ? testFiles(arg).sort() : [arg]
)

function listResults (dir: string): string[] {
  let out: string[] = []
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) out = out.concat(listResults(path))
    else if (entry.endsWith('.tap')) out.push(path)
  }
  return out
}

interface Counts { passed: number, failed: number, failures: string[] }

/** Counts a TAP stream's top-level tests (one behaviour each); a stream that failed without a failing test counts once. */
function countTap (text: string, status: number | null): Counts {
  const failures = [...text.matchAll(/^not ok \d+ - (.*?)(?: # time=.*)?$/gm)].map((match) => match[1])
  const counts = { passed: text.match(/^ok \d+/gm)?.length ?? 0, failed: failures.length, failures }
  if (counts.failed === 0 && (status !== 0 || /^# (fail|Subtest failed)|^Bail out!/m.test(text))) counts.failed = 1
  return counts
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
  if (mode === 'mysql') await resetMysql(DATABASE_URL)
  else env.EH_TEST_DATA_DIR = await prepareSqlite()
  return env
}

function cleanUp (env: Record<string, string | undefined>) {
  if (env.EH_TEST_DATA_DIR) rmSync(env.EH_TEST_DATA_DIR, { recursive: true, force: true })
}

/**
 * One bundle in a process of its own: node on the compiled files, its TAP kept in .tap/test-results and printed
 * whole when it ends (the processes of both halves end in any order).
 */
async function runBundle (mode: string, file: string, env: Record<string, string | undefined>): Promise<Counts> {
  const since = Date.now()
  const child = spawn(process.execPath, [...NODE_ARGS, file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, TAP_TIMEOUT: String(TIMEOUT_SECONDS) }
  })
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
  const kill = setTimeout(() => {
    stderr.push(Buffer.from(`# killed: still running ${TIMEOUT_SECONDS + 60} s after it started\n`))
    child.kill('SIGKILL')
  }, (TIMEOUT_SECONDS + 60) * 1000)
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearTimeout(kill)
  const tap = Buffer.concat(stdout).toString()
  const name = basename(file, '.test.js')
  mkdirSync(join(RESULTS, mode), { recursive: true })
  writeFileSync(join(RESULTS, mode, `${name}.tap`), tap)
  const counts = countTap(tap, status)
  console.log(`\n=== ${mode} · ${name} · ${counts.passed} passed, ${counts.failed} failed in ${seconds(since)} s ===`)
  process.stdout.write(tap)
  process.stdout.write(Buffer.concat(stderr))
  counts.failures = counts.failures.map((test) => `${mode} · ${name} · ${test}`)
  if (counts.failed > counts.failures.length) counts.failures.push(`${mode} · ${name} · the process (exit status ${status})`)
  return counts
}

/** A half's bundles, `jobs` at a time, in their order. */
async function runHalf (mode: string, env: Record<string, string | undefined>, jobs: number): Promise<Counts & { took: number }> {
  const since = Date.now()
  const queue = bundle(suiteFiles(mode), mode)
  const total: Counts = { passed: 0, failed: 0, failures: [] }
  await Promise.all(Array.from({ length: jobs }, async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const counts = await runBundle(mode, file, env)
      total.passed += counts.passed
      total.failed += counts.failed
      total.failures.push(...counts.failures)
    }
  }))
  return { ...total, took: seconds(since) }
}

// bin/evidence-hub.js runs dist/ when it is up to date, which test/cli/entry.test.ts checks after building it: built
// here first (a no-op when up to date), so that no test process rewrites dist/ while another one runs it.
spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' })
rmSync(RESULTS, { recursive: true, force: true })
if (tapArgs.length === 0) {
  /**
   * The whole suite: both halves at once. Neither shares state with the other (the embedded half has no Redis and
   * its own SQLite copies), and the MySQL half leaves a core idle much of the time (browsers, spawned workers),
   * which the embedded half fills. The embedded half runs fewer processes at once, so both end together.
   */
  const [envs] = await Promise.all([Promise.all(modes.map(prepare)), compileTests(process.cwd(), COMPILED)])
  const halves = await Promise.all(
    modes.map((mode, i) => runHalf(mode, envs[i], mode === 'mysql' || modes.length === 1 ? JOBS : EMBEDDED_JOBS))
  )
  console.log('')
  for (const [i, half] of halves.entries()) {
    console.log(`${modes[i]}: ${half.passed} passed, ${half.failed} failed in ${half.took} s`)
    for (const failure of half.failures) console.log(`  not ok: ${failure}`)
    passed += half.passed
    failed += half.failed
    cleanUp(envs[i])
  }
} else {
  for (const mode of modes) {
    const env = await prepare(mode)
    console.log(`\n=== ${titles[mode]} ===`)
    rmSync(RESULTS, { recursive: true, force: true })
    const since = Date.now()
    // With files named, tap runs just those, one process each, loading them with tsx (package.json's tap section).
    const run = spawnSync('npx', ['tap', ...tapArgs], { stdio: 'inherit', env })
    const counts = listResults(RESULTS).map((path) => countTap(readFileSync(path, 'utf8'), 0))
      .reduce((sum, c) => ({ passed: sum.passed + c.passed, failed: sum.failed + c.failed, failures: [] }), {
        passed: 0,
        failed: 0,
        failures: []
      })
    if (run.status !== 0 && counts.failed === 0) counts.failed = 1
    console.log(`${mode}: ${counts.passed} passed, ${counts.failed} failed in ${seconds(since)} s`)
    passed += counts.passed
    failed += counts.failed
    cleanUp(env)
  }
}
console.log(`suite wall time: ${seconds(started)} s`)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed > 0 ? 1 : 0)
