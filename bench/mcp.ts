/**
 * `npm run bench:mcp`: an MCP tools/call (`list_products`, 20 items) against the same REST call it becomes
 * (`GET /v1/products?limit=20`), both through the whole pipeline, and a bare fastify route, in the same run. The
 * service runs in its own process (bench/mcp-server.ts); autocannon runs here. Recorded in bench/RESULTS.md.
 * Options: BENCH_DURATION (s), BENCH_CONNECTIONS, BENCH_DATABASE_URL (default mysql …/bench_mcp), BENCH_KEYS.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import type autocannon from 'autocannon'
import { measure, record, table, type Figure } from './lib.js'

interface Ready { appUrl: string, bareUrl: string, storeId: string, keys: string[] }

function startServer (): Promise<{ ready: Ready, child: ChildProcess }> {
  const env = { ...process.env, BENCH_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/bench_mcp' }
  const child = fork(join(import.meta.dirname, 'mcp-server.ts'), { execArgv: ['--import', 'tsx'], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return new Promise((resolve, reject) => {
    child.once('message', (ready) => resolve({ ready: ready as Ready, child }))
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)))
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

const TOOL_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_products', arguments: { limit: 20 } } })

async function main () {
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
    const figures: Figure[] = []
    for (const [name, options] of targets) figures.push(await measure(name, options))
    const rss = await rssOf(child)
    report(ready, figures, rss)
  } finally {
    child.disconnect()
  }
}

function report (ready: Ready, figures: Figure[], rss: number) {
  const [bare, rest, tool] = figures
  const ratio = tool.rps / rest.rps
  console.log(`\ntool call / REST call: ${ratio.toFixed(2)}× requests/s (target ≥ 0.8×); server RSS ${(rss / 2 ** 20).toFixed(0)} MiB`)
  record('mcp', 'bench:mcp — an MCP tool call against the same REST call (MySQL + Redis)', [
    `One store with 100 products; ${ready.keys.length} editor keys in rotation, so no per-key budget is reached (non-2xx should be 0).`,
    'The tool call is authenticated at /mcp, then injected into the app as the REST call with the same credential, so it',
    'pays the JSON-RPC envelope, a second credential lookup and the in-process REST pipeline.',
    '',
    table(figures, bare),
    '',
    `Tool call against the REST call: **${ratio.toFixed(2)}×** the requests/s (target ≥ 0.8×); p50 ${tool.p50} ms against ${rest.p50} ms, ` +
      `p99 ${tool.p99} ms against ${rest.p99} ms. Server RSS after the run: ${(rss / 2 ** 20).toFixed(0)} MiB.`
  ].join('\n'))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
