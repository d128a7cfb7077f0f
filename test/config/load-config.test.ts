import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { ConfigError, loadConfig } from '../../src/config.js'
import { createKnex } from '../../src/db.js'

const dataDir = mkdtempSync(join(tmpdir(), 'eh-config-'))
const base = { DATA_DIR: dataDir }

function refusal (env: Record<string, string>): string {
  try {
    loadConfig({ ...base, ...env })
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    return err.message
  }
  throw new Error('loadConfig accepted the configuration')
}

t.test('the defaults give the embedded configuration on 127.0.0.1:3000', async (t) => {
  const config = loadConfig(base)
  t.match(config, {
    port: 3000,
    host: '127.0.0.1',
    publicUrl: 'http://127.0.0.1:3000',
    databaseUrl: undefined,
    redisUrl: undefined,
    webhookAllowPrivate: false
  })
  t.ok(config.secretKey.length >= 32, 'a secret key is generated into DATA_DIR')
  t.equal(loadConfig(base).secretKey, config.secretKey, 'and kept across restarts')
})

t.test('a PORT that is not a number is refused with one line naming PORT', async (t) => {
  const message = refusal({ PORT: 'abc' })
  t.match(message, /^Invalid configuration: PORT .*"abc"/)
  t.notMatch(message, /\n/)
})

t.test('a PORT out of range is refused naming PORT', async (t) => {
  t.match(refusal({ PORT: '70000' }), /^Invalid configuration: PORT /)
})

t.test('a DATABASE_URL that is not mysql:// is refused naming it without echoing the value', async (t) => {
  const message = refusal({ DATABASE_URL: 'postgres://user:hunter2@db/x', SECRET_KEY: 'k'.repeat(40) })
  t.match(message, /^Invalid configuration: DATABASE_URL /)
  t.notMatch(message, /hunter2/)
  t.notMatch(message, /\n/)
})

t.test('DATABASE_URL without SECRET_KEY is refused naming SECRET_KEY', async (t) => {
  t.match(refusal({ DATABASE_URL: 'mysql://root@127.0.0.1/x' }), /^Invalid configuration: SECRET_KEY is required$/)
})

t.test('a short SECRET_KEY is refused without echoing it', async (t) => {
  const message = refusal({ SECRET_KEY: 'short-secret' })
  t.match(message, /^Invalid configuration: SECRET_KEY /)
  t.notMatch(message, /short-secret/)
})

t.test('an unknown LOG_LEVEL is refused naming LOG_LEVEL', async (t) => {
  t.match(refusal({ LOG_LEVEL: 'loud' }), /^Invalid configuration: LOG_LEVEL /)
})

t.test('a REDIS_URL that is not redis:// is refused naming it', async (t) => {
  t.match(refusal({ REDIS_URL: 'http://127.0.0.1:6379' }), /^Invalid configuration: REDIS_URL /)
})

t.test('an SMTP_URL with the wrong scheme is refused naming it without echoing its password', async (t) => {
  const message = refusal({ SMTP_URL: 'http://mailer:hunter2@mail.example:587' })
  t.match(message, /^Invalid configuration: SMTP_URL /)
  t.notMatch(message, /hunter2/)
})

t.test('an SMTP_URL that is not a valid URL is refused at start-up without echoing its password', async (t) => {
  const message = refusal({ SMTP_URL: 'smtp://mailer:hunter2@mail.example:abc' })
  t.match(message, /^Invalid configuration: SMTP_URL /)
  t.notMatch(message, /hunter2/)
})

t.test('a DATABASE_URL or REDIS_URL no URL parser takes is refused naming it, without echoing its password', async (t) => {
  const envs: Array<Record<string, string>> = [
    { DATABASE_URL: 'mysql://root:hunter2@[::1', SECRET_KEY: 'k'.repeat(40) },
    { DATABASE_URL: 'mysql://root:hunter2@db:port/x', SECRET_KEY: 'k'.repeat(40) },
    { REDIS_URL: 'redis://:hunter2@[::1' }
  ]
  for (const env of envs) {
    const message = refusal(env)
    t.match(message, /^Invalid configuration: (DATABASE|REDIS)_URL must be a valid /)
    t.notMatch(message, /hunter2/)
  }
})

t.test('a PUBLIC_URL or BIGCOMMERCE_API_URL with a user or password in it is refused without echoing it', async (t) => {
  for (
    const [name, value] of [['PUBLIC_URL', 'https://ops:hunter2@reviews.example'], [
      'BIGCOMMERCE_API_URL',
      'https://ops:hunter2@api.bigcommerce.com'
    ]]
  ) {
    const message = refusal({ [name]: value })
    t.match(message, new RegExp(`^Invalid configuration: ${name} must be a valid http\\(s\\) URL with a host and no user or password$`))
    t.notMatch(message, /hunter2/)
  }
})

t.test('REDIS_PREFIX names the deployment\'s Redis namespace; odd characters are refused', async (t) => {
  t.equal(loadConfig(base).redisPrefix, undefined)
  t.equal(loadConfig({ ...base, REDIS_PREFIX: 'shop-eu:' }).redisPrefix, 'shop-eu:')
  t.match(refusal({ REDIS_PREFIX: 'has space' }), /^Invalid configuration: REDIS_PREFIX /)
})

t.test('WEBHOOK_ALLOW_PRIVATE takes true/false words and refuses others', async (t) => {
  t.equal(loadConfig({ ...base, WEBHOOK_ALLOW_PRIVATE: 'yes' }).webhookAllowPrivate, true)
  t.match(refusal({ WEBHOOK_ALLOW_PRIVATE: 'maybe' }), /^Invalid configuration: WEBHOOK_ALLOW_PRIVATE /)
})

/** `npm start` on the embedded default with `env` added: its exit code and what it printed. */
function npmStart (extra: Record<string, string>) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, DATA_DIR: dataDir }
  delete env.DATABASE_URL
  return new Promise<{ code: number | null, stdout: string, stderr: string }>((resolve, reject) => {
    const child = spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => { stdout += chunk })
    child.stderr.on('data', (chunk) => { stderr += chunk })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

t.test('BigCommerce\'s API is read at api.bigcommerce.com within 5 s unless BIGCOMMERCE_API_URL and _TIMEOUT_MS say otherwise', async (t) => {
  t.match(loadConfig(base), { bigcommerceApiUrl: 'https://api.bigcommerce.com', bigcommerceApiTimeoutMs: 5000 })
  t.match(loadConfig({ ...base, BIGCOMMERCE_API_URL: 'http://127.0.0.1:8089/', BIGCOMMERCE_API_TIMEOUT_MS: '250' }), {
    bigcommerceApiUrl: 'http://127.0.0.1:8089',
    bigcommerceApiTimeoutMs: 250
  })
  t.match(refusal({ BIGCOMMERCE_API_URL: 'ftp://api.example.com' }), /^Invalid configuration: BIGCOMMERCE_API_URL /)
  t.match(refusal({ BIGCOMMERCE_API_TIMEOUT_MS: '5s' }), /^Invalid configuration: BIGCOMMERCE_API_TIMEOUT_MS /)
  t.match(refusal({ BIGCOMMERCE_API_TIMEOUT_MS: '600000' }), /^Invalid configuration: BIGCOMMERCE_API_TIMEOUT_MS /)
})

t.test('a query waits 5 s for a MySQL connection unless DATABASE_CONNECT_TIMEOUT_MS says otherwise', async (t) => {
  t.match(loadConfig(base), { databaseConnectTimeoutMs: 5000 })
  t.match(loadConfig({ ...base, DATABASE_CONNECT_TIMEOUT_MS: '30000' }), { databaseConnectTimeoutMs: 30000 })
  t.match(refusal({ DATABASE_CONNECT_TIMEOUT_MS: '5s' }), /^Invalid configuration: DATABASE_CONNECT_TIMEOUT_MS /)
  t.match(refusal({ DATABASE_CONNECT_TIMEOUT_MS: '0' }), /^Invalid configuration: DATABASE_CONNECT_TIMEOUT_MS /)
})

t.test('a MySQL server that never answers fails the query after DATABASE_CONNECT_TIMEOUT_MS', async (t) => {
  const silent = createServer(() => {})
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => silent.close())
  const { port } = silent.address() as AddressInfo
  const db = createKnex({ databaseUrl: `mysql://root@127.0.0.1:${port}/test`, dataDir: tmpdir(), databaseConnectTimeoutMs: 300 })
  t.teardown(() => db.destroy())
  const since = Date.now()
  await t.rejects(db.raw('select 1'))
  t.ok(Date.now() - since < 3000, `failed after ${Date.now() - since} ms`)
})

t.test('npm start with PORT=abc exits non-zero printing one line that names PORT', async (t) => {
  const result = await npmStart({ PORT: 'abc' })
  t.not(result.code, 0)
  // npm itself may warn about the machine's own npm configuration; everything else is the service's output.
  const lines = result.stderr.split('\n').filter((line) => line && !line.startsWith('npm '))
  t.same(lines, ['Invalid configuration: PORT expected integer (got "abc")'])
})

t.test('npm start with a bad SMTP_URL exits non-zero naming SMTP_URL without printing its password', async (t) => {
  const result = await npmStart({ SMTP_URL: 'http://mailer:hunter2@mail.example' })
  t.not(result.code, 0)
  t.match(result.stderr, /Invalid configuration: SMTP_URL /)
  t.notMatch(result.stdout + result.stderr, /hunter2/)
})

/** A port nothing listens on now (the demo seed needs a real one: port 0 is no browser origin). */
function freePort (): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

t.test('npm start runs the compiled service, and SIGTERM to the npm process stops it', async (t) => {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'eh-start-')),
    PORT: String(port),
    LOG_LEVEL: 'silent'
  }
  delete env.DATABASE_URL
  const child = spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  const listening = new Promise<void>((resolve) => child.stdout.on('data', (chunk) => {
    stdout += chunk
    if (stdout.includes('is listening on')) resolve()
  }))
  let stderr = ''
  child.stderr.on('data', (chunk) => { stderr += chunk })
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  const early = await Promise.race([
    listening.then(() => null),
    closed.then((code) => `npm start exited (${code}) before listening: ${stderr}`)
  ])
  if (early) return t.fail(early)
  // This npm's own descendants: the other database mode runs this same test at the same time.
  const server = descendantsOf(child.pid!).filter((pid) => /(^|\/)node .*dist\/src\/server\.js/.test(commandOf(pid)))
  t.equal(server.length, 1, 'the server runs compiled JavaScript')
  // What the compiled service reads beside its modules is there: admin pages and the changelog the MCP server serves.
  t.equal((await fetch(`http://127.0.0.1:${port}/v1/health`)).status, 200)
  t.match(await (await fetch(`http://127.0.0.1:${port}/admin/login`)).text(), /Sign in/)
  child.kill('SIGTERM')
  t.equal(await closed, 0, 'the server shut down cleanly')
  t.same(server.filter(alive), [], 'no server process is left behind')
})

function descendantsOf (pid: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number)
  return children.flatMap((child) => [child, ...descendantsOf(child)])
}

function commandOf (pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
  } catch {
    return ''
  }
}

function alive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
