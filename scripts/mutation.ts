/**
 * `npm run test:mutation`: StrykerJS (stryker.config.mjs) over the code that guards authority, money, delivery and
 * data, on the embedded default (SQLite) or, for a file whose guards differ on MySQL, on MySQL + Redis (set
 * TEST_DATABASE_URL as for `npm test`). Ends with each mutated file's score and fails when one is under 90 %.
 * `npm run test:mutation -- src/lib/bulk.ts` mutates only the files named. Results are kept per file in
 * reports/mutation/<file>/ (index.html lists each mutant), and a rerun only tests again the mutants whose code or
 * tests changed (Stryker's incremental mode); `--force` tests them all. Slow (minutes per file, hours for all on two
 * busy cores): not part of `npm test` or CI. docs/testing.md records the scores.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { Stryker } from '@stryker-mutator/core'
import { compileTests } from './compile-tests.js'
import { prepareSqlite, resetMysql } from './test-databases.js'

const BAR = 90

// Stryker's build step, in its sandbox (stryker.config.mjs): the suite's JavaScript copy of the mutated tree.
if (process.argv[2] === '--compile') {
  await compileTests(process.cwd(), process.argv[3])
  process.exit(0)
}

interface Config {
  default: { tap: object }
  GUARDED: Record<string, string[]>
  ON_MYSQL: string[]
  testFilesOf: (files: string[]) => string[]
}
const config = await import('../stryker.config.mjs' as string) as Config
const GUARDED = config.GUARDED
const force = process.argv.includes('--force')
const named = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const unknown = named.filter((file) => !(file in GUARDED))
if (unknown.length) {
  console.error(`not mutated by stryker.config.mjs: ${unknown.join(', ')}`)
  process.exit(2)
}

/** The reports of one mutated file's runs: its incremental results, and the JSON and HTML reports. */
function reportsOf (file: string): string {
  return join('reports', 'mutation', file.replace(/\.ts$/, '').replace(/\W+/g, '-'))
}

interface Row { file: string, detected: number, survived: number, noCoverage: number, score: number }

/** Killed and timed-out mutants over all that ran or had no test (Stryker's mutation score), from a file's last report. */
function scoreOf (file: string): Row | null {
  const path = join(reportsOf(file), 'mutation.json')
  if (!existsSync(path)) return null
  const report = JSON.parse(readFileSync(path, 'utf8')) as { files: Record<string, { mutants: Array<{ status: string }> }> }
  const mutants = Object.values(report.files).flatMap((f) => f.mutants)
  const count = (...statuses: string[]) => mutants.filter((m) => statuses.includes(m.status)).length
  const detected = count('Killed', 'Timeout')
  const survived = count('Survived')
  const noCoverage = count('NoCoverage')
  const valid = detected + survived + noCoverage
  return { file, detected, survived, noCoverage, score: valid === 0 ? 100 : Math.floor((detected / valid) * 1000) / 10 }
}

/**
 * One Stryker run per mutated file, with only that file's test files: a run's results (and its incremental file)
 * stand alone, so a file can be run again by itself and an interrupted run loses only the file under way.
 */
async function mutate (file: string) {
  const reports = reportsOf(file)
  await new Stryker({
    mutate: [file],
    tap: { ...config.default.tap, testFiles: config.testFilesOf([file]) },
    incrementalFile: join(reports, 'incremental.json'),
    jsonReporter: { fileName: join(reports, 'mutation.json') },
    htmlReporter: { fileName: join(reports, 'index.html') },
    ...(force ? { force: true } : {})
  }).runMutationTest()
}

/**
 * The tests run on the embedded default, each process on its own copy of one migrated template (test/helper.ts); a
 * file whose guards differ on MySQL (ON_MYSQL) runs on MySQL + Redis, on TEST_DATABASE_URL reset as `npm test` does.
 */
async function inMode (file: string, run: () => Promise<void>) {
  if (config.ON_MYSQL.includes(file)) {
    await resetMysql(process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test')
    process.env.EH_TEST_DB = 'mysql'
    delete process.env.EH_TEST_DATA_DIR
    return run()
  }
  const template = await prepareSqlite()
  process.env.EH_TEST_DB = 'sqlite'
  process.env.EH_TEST_DATA_DIR = template
  try {
    await run()
  } finally {
    rmSync(template, { recursive: true, force: true })
  }
}

// tap's 30 s for a test run alone is short on a busy machine, where a mutant's own time limit (stryker.config.mjs) applies.
process.env.TAP_TIMEOUT ??= '300'
for (const file of named.length ? named : Object.keys(GUARDED)) await inMode(file, () => mutate(file))
let failed = false
console.log('\nfile | score | killed or timed out | survived | no coverage')
for (const file of Object.keys(GUARDED)) {
  const row = scoreOf(file)
  console.log(row ? `${file} | ${row.score} % | ${row.detected} | ${row.survived} | ${row.noCoverage}` : `${file} | not run yet`)
  if (!row || row.score < BAR) failed = true
}
console.log(failed ? `\nunder ${BAR} % (or not run) on at least one file` : `\nevery file at ${BAR} % or more`)
process.exit(failed ? 1 : 0)
