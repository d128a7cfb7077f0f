/**
 * npm run bench:oauth — the same authenticated, store-scoped GET with an OAuth access token and with an API key, in
 * one run, against a bare fastify route; then refresh-token grants per second at /oauth/token (each refresh rotates,
 * so every worker follows its own chain). MySQL + Redis. Benchmarks are not tests: nothing here asserts on time.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import knex from 'knex'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createKnex, migrateLatest } from '../src/db.js'
import { sha256 } from '../src/lib/secrets.js'
import { base62, newId } from '../src/lib/ids.js'
import { systemClock } from '../src/lib/clock.js'
import { oauthClients } from '../src/modules/connectors/connections/oauth-clients.repository.js'
import { ACCESS_TOKEN_TTL_S, API_SCOPES } from '../oauth/provider.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const CREDENTIALS = Number(process.env.BENCH_CREDENTIALS ?? 500)
const REFRESH_WORKERS = 10
const PORT = 3000 + Math.floor(Math.random() * 1000)

const config = loadConfig({
  ...process.env,
  PORT: String(PORT),
  DATABASE_URL: process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/bench_oauth',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  SECRET_KEY: process.env.SECRET_KEY ?? 'bench-secret-key-bench-secret-key-0123456789',
  LOG_LEVEL: 'silent',
  WORKERS: 'false'
})
// The bench keeps its own database: its signing keys are sealed with the bench's SECRET_KEY.
const server = knex({ client: 'mysql2', connection: { uri: config.databaseUrl!.replace(/\/[^/]*$/, '/') } as never })
await server.raw(`CREATE DATABASE IF NOT EXISTS \`${new URL(config.databaseUrl!).pathname.slice(1)}\``)
await server.destroy()
const db = createKnex(config)
await migrateLatest(db)
const app = await buildApp(config, { db, logger: false, redisPrefix: `eh:bench:${base62(6)}:` })
await app.listen({ port: PORT, host: '127.0.0.1' })
const base = config.publicUrl
const audience = `${base}/v1`

const tenant = await app.services.bootstrap.bootstrap({ org: 'Bench', store: 'Bench store', owner: `bench-${base62(8).toLowerCase()}@example.test` })
const storeId = tenant.store.id
const created = await oauthClients(db, systemClock).create({ name: 'Bench platform', redirectUris: ['http://127.0.0.1:9/callback'] })
const client = (await app.oidc.Client.find(created.clientId))!
const grants = app.services.grants

/** Grants and tokens minted through the provider's own models (the HTTP dance is tested elsewhere). */
async function mintConnection () {
  const grant = new app.oidc.Grant({ accountId: tenant.owner.id, clientId: created.clientId })
  grant.addOIDCScope('offline_access')
  grant.addResourceScope(audience, 'read')
  const grantId = await grant.save()
  await grants.insert({ id: grantId, orgId: tenant.organization.id, personId: tenant.owner.id, clientId: created.clientId, role: 'viewer', scopes: ['read'], storeIds: [storeId], createdAt: Date.now() })
  const at = new app.oidc.AccessToken({ accountId: tenant.owner.id, client, grantId, scope: 'read', gty: 'authorization_code' })
  at.resourceServer = new app.oidc.ResourceServer(audience, { scope: API_SCOPES.join(' '), audience, accessTokenTTL: ACCESS_TOKEN_TTL_S, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } })
  const rt = new app.oidc.RefreshToken({ accountId: tenant.owner.id, client, grantId, scope: 'offline_access read', resource: audience, gty: 'authorization_code' })
  return { access: await at.save(), refresh: await rt.save() }
}

const tokens: string[] = []
const refreshTokens: string[] = []
const keys: string[] = []
const keyRows = []
for (let i = 0; i < CREDENTIALS; i++) {
  const { access, refresh } = await mintConnection()
  tokens.push(access)
  refreshTokens.push(refresh)
  const secret = `svc_${base62(40)}`
  keys.push(secret)
  keyRows.push({ id: newId('key'), org_id: tenant.organization.id, name: `bench ${i}`, role: 'viewer', scopes: '["read"]', prefix: secret.slice(4, 12), secret_hash: sha256(secret), created_at: Date.now(), first_used_at: Date.now(), last_used_at: Date.now() })
}
for (let i = 0; i < keyRows.length; i += 500) await db('api_keys').insert(keyRows.slice(i, i + 500))

interface Figure { name: string, rps: number, p50: number, p99: number, non2xx: number }
async function measure (name: string, url: string, credentials?: string[]): Promise<Figure> {
  let next = 0
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [{
      method: 'GET',
      setupRequest: (req: autocannon.Request) => credentials
        ? { ...req, headers: { authorization: `Bearer ${credentials[next++ % credentials.length]}`, 'x-store-env-id': storeId } }
        : req
    }]
  })
  const figure = { name, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx }
  console.log(`${name}: ${figure.rps} req/s, p50 ${figure.p50} ms, p99 ${figure.p99} ms, non-2xx ${figure.non2xx}`)
  return figure
}

const bare = Fastify({ logger: false })
bare.get('/bare', async () => ({ ok: true }))
const bareUrl = `${await bare.listen({ port: 0, host: '127.0.0.1' })}/bare`

const figures = [
  await measure('bare fastify route', bareUrl),
  await measure('GET /v1/account/stores, API key', `${base}/v1/account/stores`, keys),
  await measure('GET /v1/account/stores, OAuth access token', `${base}/v1/account/stores`, tokens)
]

/** Refresh grants per second: each worker rotates its own chain of refresh tokens for DURATION seconds. */
async function refreshRate (): Promise<{ perSecond: number, failures: number }> {
  const basic = `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString('base64')}`
  const until = Date.now() + DURATION * 1000
  let done = 0
  let failures = 0
  const started = Date.now()
  await Promise.all(Array.from({ length: REFRESH_WORKERS }, async (_, w) => {
    let token = refreshTokens[w]
    while (Date.now() < until) {
      const res = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }) })
      const body = await res.json() as { refresh_token?: string }
      if (res.status !== 200 || !body.refresh_token) { failures++; break }
      token = body.refresh_token
      done++
    }
  }))
  return { perSecond: Math.round(done / ((Date.now() - started) / 1000)), failures }
}
const refresh = await refreshRate()
console.log(`refresh grants: ${refresh.perSecond}/s with ${REFRESH_WORKERS} workers, failures ${refresh.failures}`)

const [bareFig, keyFig, oauthFig] = figures
const body = [
  `${CREDENTIALS} API keys and ${CREDENTIALS} OAuth connections (viewer, scope \`read\`) in rotation, so no per-credential budget is reached.`,
  '',
  '| target | req/s | vs bare | p50 ms | p99 ms | non-2xx |',
  '|---|---:|---:|---:|---:|---:|',
  ...figures.map((f) => `| ${f.name} | ${f.rps} | ${(f.rps / bareFig.rps).toFixed(2)} | ${f.p50} | ${f.p99} | ${f.non2xx} |`),
  '',
  `OAuth token vs API key: **${(oauthFig.rps / keyFig.rps).toFixed(2)}** (throughput ratio in the same run).`,
  '',
  `Refresh-token grants (with rotation) at /oauth/token: **${refresh.perSecond}/s** with ${REFRESH_WORKERS} concurrent chains (${(refresh.perSecond / bareFig.rps).toFixed(3)} of bare), ${refresh.failures} failures.`,
  '',
  'An OAuth request verifies the RS256 signature locally, then one query joins the grant record, the provider\'s',
  'grant row and the membership (liveness and role re-check); an API key request does one indexed hash lookup.'
].join('\n')

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md')
const start = '<!-- bench:oauth -->'
const end = '<!-- /bench:oauth -->'
const section = `${start}\n## bench:oauth — OAuth access token vs API key, and refresh grants (MySQL + Redis)\n\nRun ${new Date().toISOString()} on ${process.platform}/${process.arch}, Node ${process.version}, ${DURATION} s per target, ${CONNECTIONS} connections.\n\n${body}\n${end}`
const current = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '# Benchmark results\n'
const pattern = new RegExp(`${start}[\\s\\S]*?${end}`)
writeFileSync(RESULTS, pattern.test(current) ? current.replace(pattern, section) : `${current.trimEnd()}\n\n${section}\n`)
console.log('recorded in bench/RESULTS.md')

await bare.close()
await app.close()
await db.destroy()
