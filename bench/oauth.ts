/**
 * npm run bench:oauth — refresh-token grants per second at /oauth/token (each refresh rotates, so each chain follows
 * its own tokens), and the same authenticated, store-scoped GET with an OAuth access token and with an API key.
 * The service runs in its own process as `npm start` runs it (MySQL + Redis); wrk drives the GETs from another
 * process and bench/refresh-client.ts the refresh chains from a third; a bare fastify process is the anchor.
 * Records bench/RESULTS.md. Benchmarks are not tests: nothing here asserts on time.
 * Options: BENCH_DURATION (s), BENCH_CONNECTIONS, BENCH_CHAINS (concurrent refresh chains, default 20).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir, loadavg } from 'node:os'
import { join } from 'node:path'
import { base62 } from '../src/lib/ids.js'
import { DURATION, record } from './lib.js'
import { oauthMinter } from './oauth-tokens.js'
import { seedKeys } from './read-seed.js'
import { benchService, figureTable, ROOT, rssMb, startCompiledService, startProcess, warmUp, wrk } from './wrk.js'

const CHAINS = Number(process.env.BENCH_CHAINS ?? 20)
/** Per-credential budgets are 50 per 10 s: enough of each that the GETs measure the pipeline, never a 429. */
const CREDENTIALS = Number(process.env.BENCH_CREDENTIALS ?? 8_000)

const { port: PORT, env, config, db, app } = await benchService('eh_bench_oauth')
const tenant = await app.services.bootstrap.bootstrap({
  org: 'Bench',
  store: 'Bench store',
  owner: `bench-${base62(8).toLowerCase()}@example.test`
})
const storeId = tenant.store.id
const minter = await oauthMinter(app, { orgId: tenant.organization.id, personId: tenant.owner.id, storeId }, 'Bench platform')

const tokens: string[] = []
const refreshTokens: string[] = []
for (let i = 0; i < CREDENTIALS; i++) {
  const { access, refresh } = await minter.mint(i < CHAINS)
  tokens.push(access)
  if (refresh) refreshTokens.push(refresh)
}
const keys = await seedKeys(db, { orgId: tenant.organization.id, storeId, ownerId: tenant.owner.id }, CREDENTIALS)
await app.close()
await db.destroy()

const dir = mkdtempSync(join(tmpdir(), 'eh-bench-oauth-'))
const files = { keys: join(dir, 'keys'), tokens: join(dir, 'tokens'), refresh: join(dir, 'refresh') }
writeFileSync(files.keys, keys.join('\n') + '\n')
writeFileSync(files.tokens, tokens.join('\n') + '\n')
writeFileSync(files.refresh, refreshTokens.join('\n') + '\n')

interface Refresh { grants: number, failures: number, perSecond: number, p50: number, p99: number }

/** bench/refresh-client.ts in its own process: CHAINS chains of rotating refresh grants for DURATION seconds. */
function refreshRate (): Refresh {
  const out = spawnSync(process.execPath, ['--import', 'tsx', 'bench/refresh-client.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      ...process.env,
      BASE: config.publicUrl,
      CLIENT_ID: minter.clientId,
      CLIENT_SECRET: minter.clientSecret,
      TOKENS_FILE: files.refresh,
      CHAINS: String(CHAINS),
      DURATION: String(DURATION)
    }
  })
  if (out.stderr.trim()) console.error(out.stderr.trim())
  const result = JSON.parse(out.stdout.trim().split('\n').pop()!) as Refresh
  console.log(
    `refresh grants: ${result.perSecond}/s with ${CHAINS} chains, p50 ${result.p50} ms, p99 ${result.p99} ms, failures ${result.failures}`
  )
  return result
}

const barePort = PORT + 1000
const bare = await startProcess(['--import', 'tsx', 'bench/bare-server.ts'], { ...env, PORT: String(barePort) }, /listening/)
const service = await startCompiledService(env)
const pid = service.pid!
try {
  const rotating = (file: string) => ({ script: 'bench/rotate.lua', args: [storeId, file], pid })
  const anchor = wrk('bare fastify route (own process)', barePort, '/bare')
  // Each credential's first use resolves it from the database (and records a connection's first use): warm both.
  await warmUp(PORT, '/v1/features', storeId, keys)
  await warmUp(PORT, '/v1/features', storeId, tokens)
  const refresh = refreshRate()
  const key = wrk('GET /v1/features, API key', PORT, '/v1/features', rotating(files.keys))
  const oauth = wrk('GET /v1/features, OAuth access token', PORT, '/v1/features', rotating(files.tokens))
  const rss = rssMb(pid)
  record('oauth', 'bench:oauth — refresh grants, and OAuth access token vs API key, service in its own process (MySQL + Redis)', [
    `The service as \`npm start\` runs it; refresh chains from bench/refresh-client.ts and the GETs from wrk (bench/rotate.lua), each in its own process; ${CREDENTIALS} viewer API keys and ${CREDENTIALS} viewer OAuth connections (scope \`read\`) in rotation, so no per-credential budget is reached.`,
    '',
    '| refresh-token grants with rotation | grants/s | p50 ms | p99 ms | failures |',
    '|---|---:|---:|---:|---:|',
    `| ${CHAINS} concurrent chains at /oauth/token | ${refresh.perSecond} | ${refresh.p50} | ${refresh.p99} | ${refresh.failures} |`,
    '',
    figureTable([anchor, key, oauth]),
    '',
    `OAuth token vs API key: **${(oauth.rps / key.rps).toFixed(2)}** (throughput ratio in the same run). Service RSS at the end: ${rss} MB. Load average at the end (1/5/15 min): ${loadavg().map((l) => l.toFixed(1)).join(' / ')}.`,
    '',
    'Access tokens are ES256 JWTs (ID tokens stay RS256, OpenID Connect\'s default). A grant is three statements: the refresh token joined with its rotation record, the provider\'s grant, our connection, the membership, the client and the person; the successor; the rotation record, which consumes the old token (the client\'s metadata is kept in memory once read). Then it signs a new access token. An OAuth GET checks the token\'s signature only when its credential is loaded (first use, a moved marker, or after a minute) and settles liveness with the grant\'s and person\'s markers in the limiter\'s one Redis call; an API key GET resolves its hash from memory the same way.'
  ].join('\n'))
} finally {
  service.kill('SIGTERM')
  bare.kill('SIGTERM')
}
