/**
 * `npm run bench:mcp`: an MCP tools/call (`list_products`, 20 items) against the same REST call it becomes
 * (`GET /v1/products?limit=20`), both through the whole pipeline, and a bare fastify route, in the same run. The
 * service runs in its own process (bench/mcp-server.ts); autocannon runs here. Recorded in bench/RESULTS.md.
 * REST and MCP are measured in BENCH_ROUNDS back-to-back pairs, the order alternating, and the ratio taken per pair:
 * on a shared machine the load drifts between targets, and one pair alone can land on either side of a spike.
 * Options: BENCH_DURATION (s), BENCH_CONNECTIONS, BENCH_DATABASE_URL (default mysql …/bench_mcp), BENCH_KEYS,
 * BENCH_ROUNDS (default 3), BENCH_SERVER_ARGS (node flags for the service process, e.g. `--cpu-prof`).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { cpus, loadavg } from 'node:os'
import type autocannon from 'autocannon'
import { DURATION, measure, record, table, type Figure } from './lib.js'

interface Ready { appUrl: string, bareUrl: string, storeId: string, keys: string[] }

function startServer (): Promise<{ ready: Ready, child: ChildProcess }> {
  const env = { ...process.env, BENCH_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/bench_mcp' }
  const child = fork(join(import.meta.dirname, 'mcp-server.ts'), { execArgv: ['--import', 'tsx', ...(process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean)], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return new Promise((resolve, reject) => {
    child.once('message', (ready) => resolve({ ready: ready as Ready, child }))
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)))
  })
}

/** The service process's CPU time so far (user + system, µs). */
function cpuOf (child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve((m as { cpu: number }).cpu))
    child.send('cpu')
  })
}

function rssOf (child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve((m as { rss: number }).rss))
    child.send('rss')
  })
}

/** Round-robin over many keys so no credential reaches its rate limit during the run. */
function rotating (ready: Ready, request: autocannon.Request): autocannon.Request[] {
  let next = 0
  return [{
    ...request,
    setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${ready.keys[next++ % ready.keys.length]}`, 'x-store-env-id': ready.storeId } })
  }]
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

interface CpuFigure extends Figure { cpuPerRequest: number }

const TOOL_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_products', arguments: { limit: 20 } } })

/** The 1-minute load average: the machine is shared, so a figure means little without it. */
const load = () => loadavg()[0].toFixed(1)

async function main () {
  const loadBefore = load()
  const { ready, child } = await startServer()
  try {
    const targets: Array<[string, autocannon.Options]> = [
      ['bare fastify route', { url: ready.bareUrl }],
      ['REST `GET /v1/products?limit=20`', { url: ready.appUrl, requests: rotating(ready, { method: 'GET', path: '/v1/products?limit=20' }) }],
      ['MCP `tools/call list_products {limit: 20}`', {
        url: ready.appUrl,
        requests: rotating(ready, { method: 'POST', path: '/mcp', body: TOOL_CALL, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } })
      }]
    ]
    for (const [name, options] of targets) await measure(`warm-up: ${name}`, { ...options, duration: 2 })
    const [bareTarget, restTarget, toolTarget] = targets
    /** Also the service's CPU time per request: steadier than requests/s when other work shares the cores. */
    const measureCpu = async (name: string, options: autocannon.Options): Promise<CpuFigure> => {
      const before = await cpuOf(child)
      const figure = await measure(name, options)
      const cpu = (await cpuOf(child)) - before
      return { ...figure, cpuPerRequest: Math.round(cpu / Math.max(1, figure.rps * DURATION)) }
    }
    const bare = await measure(...bareTarget)
    const pairs: Array<[CpuFigure, CpuFigure]> = []
    for (let round = 0; round < ROUNDS; round++) {
      const label = (target: typeof restTarget): typeof restTarget => [`${target[0]} (round ${round + 1})`, target[1]]
      if (round % 2 === 0) {
        const rest = await measureCpu(...label(restTarget))
        pairs.push([rest, await measureCpu(...label(toolTarget))])
      } else {
        const tool = await measureCpu(...label(toolTarget))
        pairs.push([await measureCpu(...label(restTarget)), tool])
      }
    }
    const rss = await rssOf(child)
    report(ready, bare, pairs, rss, `${loadBefore} before, ${load()} after, on ${cpus().length} cores`)
  } finally {
    child.disconnect()
  }
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

function report (ready: Ready, bare: Figure, pairs: Array<[CpuFigure, CpuFigure]>, rss: number, loads: string) {
  const ratios = pairs.map(([rest, tool]) => tool.rps / rest.rps)
  const ratio = median(ratios)
  const of = (pick: (f: CpuFigure) => number, side: 0 | 1) => median(pairs.map((pair) => pick(pair[side])))
  const cpu = pairs.map(([rest, tool]) => `${rest.cpuPerRequest}/${tool.cpuPerRequest}`).join(', ')
  const cpuRatio = of((f) => f.cpuPerRequest, 0) / of((f) => f.cpuPerRequest, 1)
  console.log(`\ntool call / REST call: ${ratio.toFixed(2)}× requests/s, median of ${ratios.map((r) => r.toFixed(2)).join(', ')} (target ≥ 0.8×); ` +
    `service CPU µs per request REST/MCP ${cpu} (capacity ${cpuRatio.toFixed(2)}×); server RSS ${(rss / 2 ** 20).toFixed(0)} MiB`)
  record('mcp', 'bench:mcp — an MCP tool call against the same REST call (MySQL + Redis)', [
    `One store with 100 products; ${ready.keys.length} editor keys in rotation, so no per-key budget is reached (non-2xx should be 0).`,
    'The tool call is authenticated at /mcp, then injected into the app as the REST call with the credential /mcp',
    'resolved handed over (no second lookup), so it pays the JSON-RPC envelope, the SDK and the in-process REST pipeline.',
    `REST and MCP ran in ${pairs.length} back-to-back pairs, the order alternating; each pair gives one ratio.`,
    `Machine load average (1 min): ${loads}.`,
    '',
    table([bare, ...pairs.flat()], bare),
    '',
    `Tool call against the REST call: **${ratio.toFixed(2)}×** the requests/s, median of the pairs (${ratios.map((r) => `${r.toFixed(2)}×`).join(', ')}; ` +
      `target ≥ 0.8×); median p50 ${of((f) => f.p50, 1)} ms against ${of((f) => f.p50, 0)} ms, p99 ${of((f) => f.p99, 1)} ms against ` +
      `${of((f) => f.p99, 0)} ms. Service CPU per request, REST/MCP by pair: ${cpu} µs, so a tool call costs ` +
      `${(1 / cpuRatio).toFixed(2)}× the CPU of the REST call (a CPU-bound capacity of ${cpuRatio.toFixed(2)}×). Server RSS after the run: ${(rss / 2 ** 20).toFixed(0)} MiB.`,
    '',
    'Where the difference went (service `--cpu-prof` over the MCP window, 2026-11-23, by then one credential lookup, no',
    'server close): the same four queries and one Redis call as REST, whose socket writes cost about twice as much per',
    'call at the lower rate; the SDK (per-request Server and transport, zod message and result validation, the web',
    'Request/Response round trip, the JSON-RPC response carrying the REST JSON twice, as text and structuredContent);',
    'the second fastify pipeline that app.inject runs; and the garbage all of it makes (GC about 12% against 6%).'
  ].join('\n'))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
