/**
 * `npm run bench:mcp`: an MCP tools/call (`list_products`, 20 items) against the same REST call it becomes
 * (`GET /v1/products?limit=20`), both through the whole pipeline. The service runs in its own process as `npm start`
 * runs it (MySQL + Redis), wrk drives both from another (bench/mcp.lua, keys in rotation), and a bare fastify
 * process is the anchor. REST and MCP are measured in BENCH_ROUNDS back-to-back pairs, the order alternating, and
 * the ratio taken per pair: on a shared machine the load drifts between targets. Each figure also carries the
 * service's CPU per request, steadier than requests/s when other work shares the cores. Records bench/RESULTS.md.
 * Benchmarks are not tests: nothing here asserts on time.
 */
import { writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir, loadavg } from 'node:os'
import { join } from 'node:path'
import { record } from './lib.js'
import { seedKeys } from './read-seed.js'
import { benchService, cpuMicros, figureTable, rssMb, startCompiledService, startProcess, wrk, type WrkFigure } from './wrk.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
/** Per-key budgets are 50 per 10 s: enough keys that the run measures the endpoint, never a 429. */
const KEYS = Number(process.env.BENCH_KEYS ?? 3000)

const { port: PORT, env, db, app } = await benchService('eh_bench_mcp')
const tenant = await app.services.bootstrap.bootstrap({
  org: 'Bench MCP',
  store: 'Bench store',
  owner: `bench-mcp-${Date.now()}@example.test`
})
const storeId = tenant.store.id
const keys = await seedKeys(db, { orgId: tenant.organization.id, storeId, ownerId: tenant.owner.id }, KEYS)
const products = Array.from(
  { length: 100 },
  (_, i) => ({ platformProductId: `p${i}`, title: `Product ${i}`, url: `https://shop.example/p/${i}` })
)
const seeded = await app.inject({
  method: 'PUT',
  url: '/v1/products',
  headers: { authorization: `Bearer ${tenant.apiKey.secret}`, 'x-store-env-id': storeId },
  payload: { products }
})
if (seeded.statusCode !== 200) throw new Error(`seeding products failed: ${seeded.body}`)
await app.close()
await db.destroy()

const dir = mkdtempSync(join(tmpdir(), 'eh-bench-mcp-'))
const keysFile = join(dir, 'keys')
writeFileSync(keysFile, keys.join('\n') + '\n')

interface CpuFigure extends WrkFigure { cpuPerRequest: number }

const barePort = PORT + 1000
const bare = await startProcess(['--import', 'tsx', 'bench/bare-server.ts'], { ...env, PORT: String(barePort) }, /listening/)
const service = await startCompiledService(env)
const pid = service.pid!
try {
  const call = (name: string, mode: 'rest' | 'mcp'): CpuFigure => {
    const before = cpuMicros(pid)
    const figure = wrk(name, PORT, '/', { script: 'bench/mcp.lua', args: [storeId, keysFile, mode], pid })
    const requests = Math.max(1, figure.rps * Number(process.env.BENCH_DURATION ?? 10))
    return { ...figure, cpuPerRequest: Math.round((cpuMicros(pid) - before) / requests) }
  }
  const anchor = wrk('bare fastify route (own process)', barePort, '/bare')
  call('warm-up, REST (not recorded)', 'rest')
  call('warm-up, MCP (not recorded)', 'mcp')
  const pairs: Array<[CpuFigure, CpuFigure]> = []
  for (let round = 1; round <= ROUNDS; round++) {
    const rest = () => call(`REST \`GET /v1/products?limit=20\` (round ${round})`, 'rest')
    const tool = () => call(`MCP \`tools/call list_products {limit: 20}\` (round ${round})`, 'mcp')
    if (round % 2 === 1) {
      const r = rest()
      pairs.push([r, tool()])
    } else {
      const m = tool()
      pairs.push([rest(), m])
    }
  }
  report(anchor, pairs)
} finally {
  service.kill('SIGTERM')
  bare.kill('SIGTERM')
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

function report (anchor: WrkFigure, pairs: Array<[CpuFigure, CpuFigure]>) {
  const ratios = pairs.map(([rest, tool]) => tool.rps / rest.rps)
  const ratio = median(ratios)
  const of = (pick: (f: CpuFigure) => number, side: 0 | 1) => median(pairs.map((pair) => pick(pair[side])))
  const cpu = pairs.map(([rest, tool]) => `${rest.cpuPerRequest}/${tool.cpuPerRequest}`).join(', ')
  const capacity = of((f) => f.cpuPerRequest, 0) / of((f) => f.cpuPerRequest, 1)
  console.log(`\ntool call / REST call: ${ratio.toFixed(2)}× requests/s (pairs ${ratios.map((r) => r.toFixed(2)).join(', ')}; target ≥ 0.8×); service CPU µs per request REST/MCP ${cpu}`)
  record('mcp', 'bench:mcp — an MCP tool call against the same REST call, service in its own process (MySQL + Redis, wrk)', [
    `The service as \`npm start\` runs it; wrk (bench/mcp.lua) in its own process; the bare route in a third. One store with 100 products; ${KEYS} viewer keys in rotation, so no per-key budget is reached. The tool call is authenticated at /mcp, then injected into the app as the REST call with the credential /mcp resolved handed over (no second lookup), so it pays the JSON-RPC envelope, the SDK and the in-process REST pipeline. REST and MCP ran in ${pairs.length} back-to-back pairs, the order alternating; each pair gives one ratio.`,
    '',
    figureTable([anchor, ...pairs.flat()]),
    '',
    `Tool call against the REST call: **${ratio.toFixed(2)}×** the requests/s, median of the pairs (${ratios.map((r) => `${r.toFixed(2)}×`).join(', ')}; target ≥ 0.8×); median p99 ${of((f) => f.p99, 1)} ms against ${of((f) => f.p99, 0)} ms. Service CPU per request, REST/MCP by pair: ${cpu} µs, so a tool call costs ${(1 / capacity).toFixed(2)}× the CPU of the REST call. Service RSS at the end: ${rssMb(pid)} MB. Load average at the end (1/5/15 min): ${loadavg().map((l) => l.toFixed(1)).join(' / ')}.`,
    '',
    'Where the difference goes (service `--cpu-prof` over tool calls, 2026-11-24): spread thinly over the SDK\'s transport and protocol (zod parsing of each message, including an initialize check that fails, building its error, on every message that is not one), the web Request/Response round trip, light-my-request\'s request and response for the injected REST call, and the garbage they make; no single part is large.'
  ].join('\n'))
}
