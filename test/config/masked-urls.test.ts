import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { createKnex } from '../../src/db.js'
import { consoleLog } from '../../src/lib/log.js'
import { loggedApp, nodeEntry } from '../helper.js'
import { TEST_SECRET_KEY } from '../secret.js'

/**
 * A password in a configured URL never reaches what the service prints: not at start-up (server, worker, CLI), not in
 * knex's own warnings, not in a log line. Each URL below carries PASSWORD; each test first makes sure the path was
 * taken, then that the password is nowhere in the output.
 */
const PASSWORD = 'S3cretPa55'

interface Run { code: number | null, output: string }

/** Runs an entry point (src/server.ts, src/worker.ts, src/cli/index.ts) with only `env` and a fresh data directory. */
function run (entry: string, env: Record<string, string>, args: string[] = []): Promise<Run> {
  const full = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'eh-masked-')),
    SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: 'info',
    ...env
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-warnings', ...nodeEntry(entry), ...args], { env: full, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => { output += chunk })
    child.stderr.on('data', (chunk) => { output += chunk })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

const cutOff = { DATABASE_URL: `mysql://root:${PASSWORD}@[::1` }
const cutOffRedis = { REDIS_URL: `redis://:${PASSWORD}@[::1` }

t.test('the server started with a DATABASE_URL no parser takes stops naming DATABASE_URL, without printing its password', async (t) => {
  const { code, output } = await run('src/server.ts', cutOff)
  t.not(code, 0)
  t.match(output, /Invalid configuration: DATABASE_URL must be a valid mysql:\/\/ URL/)
  t.notMatch(output, PASSWORD)
})

t.test('the server started with a REDIS_URL no parser takes stops naming REDIS_URL, without printing its password', async (t) => {
  const { code, output } = await run('src/server.ts', cutOffRedis)
  t.not(code, 0)
  t.match(output, /Invalid configuration: REDIS_URL /)
  t.notMatch(output, PASSWORD)
})

t.test('the worker process started with a DATABASE_URL no parser takes stops without printing its password', async (t) => {
  const { code, output } = await run('src/worker.ts', cutOff)
  t.not(code, 0)
  t.match(output, /Invalid configuration: DATABASE_URL /)
  t.notMatch(output, PASSWORD)
})

t.test('the CLI run with a DATABASE_URL or a REDIS_URL no parser takes fails without printing the password', async (t) => {
  for (const env of [cutOff, cutOffRedis]) {
    const { code, output } = await run('src/cli/index.ts', env, ['org', 'list', '--json'])
    t.equal(code, 1, Object.keys(env)[0])
    t.match(output, /org list: Invalid configuration: (DATABASE|REDIS)_URL /)
    t.notMatch(output, PASSWORD)
  }
})

/** What `fn` writes through console.error and process.stdout while it runs. */
async function captured (fn: () => Promise<unknown>): Promise<string> {
  let out = ''
  const { error } = console
  const write = process.stdout.write
  console.error = (...args: unknown[]) => { out += args.join(' ') + '\n' }
  process.stdout.write = ((chunk: string) => { out += chunk; return true }) as typeof process.stdout.write
  try {
    await fn()
  } finally {
    console.error = error
    process.stdout.write = write
  }
  return out
}

t.test('knex\'s own warnings show URLs without their passwords', async (t) => {
  const db = createKnex({ databaseUrl: `mysql://root:${PASSWORD}@db.internal/app`, dataDir: tmpdir(), databaseConnectTimeoutMs: 200 })
  t.teardown(() => db.destroy())
  // Node before 18 put the input in "Invalid URL" messages, which knex prints with its pool's acquire errors.
  const out = await captured(async () =>
    (db.client as { logger: { warn: (m: string) => void } }).logger.warn(
      `Acquire connection error: TypeError [ERR_INVALID_URL]: Invalid URL: mysql://root:${PASSWORD}@[::1`
    )
  )
  t.match(out, 'Invalid URL: mysql://root:***@[::1')
  t.notMatch(out, PASSWORD)
})

t.test('the worker\'s log lines show URLs without their passwords', async (t) => {
  const out = await captured(async () =>
    consoleLog('info').warn({ err: { message: `could not reach smtp://mailer:${PASSWORD}@mail.example:587` } }, 'mail failed')
  )
  t.match(out, 'smtp://mailer:***@mail.example:587')
  t.notMatch(out, PASSWORD)
})

t.test('a request that fails with a URL in its error is logged without the URL\'s password', async (t) => {
  const { app, lines } = await loggedApp(t, {
    routes: async (app) => {
      app.get('/v1/health/boom', { config: { auth: 'public' } }, async () => {
        throw Object.assign(new Error(`could not reach https://user:${PASSWORD}@api.example/v1`), {
          input: `redis://:${PASSWORD}@cache:6379`
        })
      })
    }
  })
  t.equal((await app.inject({ method: 'GET', url: '/v1/health/boom' })).statusCode, 500)
  const logged = lines.join('')
  t.match(logged, 'https://user:***@api.example/v1')
  t.match(logged, 'redis://:***@cache:6379')
  t.notMatch(logged, PASSWORD)
})
