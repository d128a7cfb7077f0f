/**
 * The evidence-hub the n8n end-to-end run talks to: its own MySQL database (dropped and migrated each run), Redis,
 * and the built server started as its own process on a free port, with workers on (hook deliveries) and private
 * target URLs allowed (n8n listens on 127.0.0.1). Also the organization, the OAuth client n8n connects with, and a
 * connection made through the real login and consent screens.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import knex from 'knex'
import { importJWK, SignJWT, decodeJwt } from 'jose'
import { createKnex } from '../../src/db.js'
import { runCli } from '../../src/cli/run.js'
import { loadSigningKeys } from '../../oauth/keys.js'
import { Browser, csrfOf } from '../../test/oauth/browser.js'

export const DATABASE_URL = process.env.N8N_E2E_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test_n8n_e2e'
/** A Redis database of its own, so the run's rate-limit keys meet no one else's. */
const REDIS_URL = process.env.N8N_E2E_REDIS_URL ?? 'redis://127.0.0.1:6379/7'
const SECRET_KEY = 'n8n-end-to-end-run-only-'.padEnd(40, '0')

export interface Service {
  base: string
  process: ChildProcess
  org: string
  store: string
  owner: { email: string, password: string }
  apiKey: string
}

async function resetDatabase () {
  const url = new URL(DATABASE_URL)
  const name = url.pathname.slice(1)
  if (!/^test_\w+$/.test(name)) throw new Error(`refusing to reset ${name}: the end-to-end database's name starts with test_`)
  const server = knex({
    client: 'mysql2',
    connection: {
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password)
    }
  })
  await server.raw(`DROP DATABASE IF EXISTS \`${name}\``)
  await server.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  await server.destroy()
}

function env (port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL,
    REDIS_URL,
    SECRET_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WORKERS: 'true',
    LOG_LEVEL: process.env.N8N_E2E_SERVICE_LOG_LEVEL ?? 'warn'
  }
}

/** An operator command, in this process: its JSON answer. */
async function cli (args: string[], port: number): Promise<any> {
  let out = ''
  let err = ''
  const code = await runCli([...args, '--json'], {
    env: env(port),
    stdout: {
      write: (text) => {
        out += text
      }
    },
    stderr: {
      write: (text) => {
        err += text
      }
    }
  })
  if (code !== 0) throw new Error(`evidence-hub ${args.join(' ')} failed: ${err}`)
  return JSON.parse(out)
}

async function waitFor<T> (what: string, probe: () => Promise<T | undefined>, seconds: number): Promise<T> {
  const until = Date.now() + seconds * 1000
  for (;;) {
    const found = await probe().catch(() => undefined)
    if (found !== undefined) return found
    if (Date.now() > until) throw new Error(`timed out after ${seconds} s waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** Builds and starts the service; resolves once /v1/health answers. Its output goes to `logFile`. */
export async function startService (
  port: number,
  logFile: string,
  n8nCallback: string
): Promise<Service & { clientId: string, clientSecret: string }> {
  await resetDatabase()
  const made = await cli([
    'bootstrap',
    '--org',
    'n8n end-to-end',
    '--store',
    'Main store',
    '--owner',
    'owner@n8n-e2e.example',
    '--plan',
    'growth'
  ], port)
  const client = await cli(['oauth-client', 'create', '--name', 'n8n', '--redirect-uri', n8nCallback], port)
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' })
  const log = createWriteStream(logFile)
  const child = spawn(process.execPath, ['--enable-source-maps', join('dist', 'src', 'server.js')], {
    env: env(port),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  child.stdout!.pipe(log)
  child.stderr!.pipe(log)
  const base = `http://127.0.0.1:${port}`
  await waitFor('the service to answer /v1/health', async () => (await fetch(`${base}/v1/health`)).ok || undefined, 60)
  return {
    base,
    process: child,
    org: made.organization.id,
    store: made.store.id,
    owner: { email: made.owner.email, password: made.owner.password },
    apiKey: made.apiKey.secret,
    clientId: client.clientId,
    clientSecret: client.clientSecret
  }
}

/**
 * A connection made as n8n's "Connect my account" makes it: the authorization request with a PKCE challenge, the
 * owner's login and consent (organization, store, role), and the code redeemed at the token endpoint with the
 * verifier and the client's secret. The token response, `store_env_id` included.
 */
export async function connectByOAuth (
  service: Service,
  client: { id: string, secret: string },
  redirectUri: string
): Promise<Record<string, any>> {
  const verifier = randomBytes(32).toString('base64url')
  const state = randomBytes(16).toString('base64url')
  const authorize = new URL(`${service.base}/oauth/auth`)
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: redirectUri,
    scope: 'read write offline_access',
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256'
  }).toString()
  const browser = new Browser()
  let page = await browser.follow(authorize.href)
  if (page.text.includes('name="password"')) {
    page = await browser.follow(page.url.replace(/\/?$/, '/login'), { form: { _csrf: csrfOf(page.text), ...service.owner } })
  }
  const done = await browser.follow(page.url.replace(/\/?$/, '/consent'), {
    form: { _csrf: csrfOf(page.text), org: service.org, stores: [service.store], role: 'admin' }
  })
  if (!done.location?.startsWith(redirectUri)) {
    throw new Error(`expected the redirect to n8n, got ${done.status} ${done.location}: ${done.text.slice(0, 300)}`)
  }
  const code = new URL(done.location).searchParams.get('code')!
  const res = await fetch(`${service.base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier })
  })
  if (!res.ok) throw new Error(`token exchange failed: ${res.status} ${await res.text()}`)
  return await res.json() as Record<string, any>
}

/**
 * The same access token as it would be two hours later: its claims and signature as the service made them, with
 * its issue and expiry times moved two hours back (signed with the service's own key, read with SECRET_KEY). The
 * service answers it 401, so n8n must refresh.
 */
export async function expired (accessToken: string): Promise<string> {
  const db = createKnex({ databaseUrl: DATABASE_URL, dataDir: '.' })
  try {
    const claims = decodeJwt(accessToken)
    const header = JSON.parse(Buffer.from(accessToken.split('.')[0], 'base64url').toString()) as { alg: string, typ?: string, kid?: string }
    const key = (await loadSigningKeys(db, SECRET_KEY, Date.now())).find((candidate) => candidate.kid === header.kid)
    if (!key) throw new Error('the key that signed the access token is not in the database')
    const shift = 2 * 3600
    return await new SignJWT({ ...claims, iat: claims.iat! - shift, exp: claims.exp! - shift })
      .setProtectedHeader(header)
      .sign(await importJWK(key, header.alg))
  } finally {
    await db.destroy()
  }
}

export { waitFor }
