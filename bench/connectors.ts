/**
 * `npm run bench:connectors`: requests/s and p99 of polling `GET /connectors/triggers/review.created` over a store
 * with 1,000,000 events, as a ratio against a bare fastify route and (when the branch has it) against
 * `GET /outbound-webhooks/events`, all measured in the same run. The servers run in a child process
 * (bench/connectors-server.ts). Options: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 10),
 * BENCH_DATABASE_URL (MariaDB instead of the embedded SQLite), BENCH_EVENTS.
 */
import { fork } from 'node:child_process'
import { join } from 'node:path'
import autocannon from 'autocannon'

interface Ready { appUrl: string, bareUrl: string, storeId: string, keys: string[], targets: Record<string, string>, events: number, database: string }
interface Figures { name: string, path: string, rps: number, p99: number, non2xx: number }

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)

function startServer (): Promise<{ ready: Ready, stop: () => void }> {
  const child = fork(join(import.meta.dirname, 'connectors-server.ts'), { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return new Promise((resolve, reject) => {
    child.once('message', (ready) => resolve({ ready: ready as Ready, stop: () => child.disconnect() }))
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)))
  })
}

/** Round-robin over many keys so no credential reaches its rate limit during the run. */
async function measure (name: string, url: string, path: string, ready: Ready, duration = DURATION): Promise<Figures> {
  let next = 0
  const result = await autocannon({
    url: url + path,
    connections: CONNECTIONS,
    duration,
    requests: [{
      method: 'GET',
      setupRequest: (request) => ({
        ...request,
        headers: { ...request.headers, authorization: `Bearer ${ready.keys[next++ % ready.keys.length]}`, 'x-store-env-id': ready.storeId }
      })
    }]
  })
  return { name, path, rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx }
}

async function main () {
  const { ready, stop } = await startServer()
  try {
    const targets: Array<[string, string, string]> = [['bare fastify route', ready.bareUrl, '/']]
    targets.push(['connector polling', ready.appUrl, ready.targets.polling])
    if (ready.targets.cursor) targets.push(['event log cursor', ready.appUrl, ready.targets.cursor])
    for (const [name, url, path] of targets) await measure(name, url, path, ready, 2)
    const figures: Figures[] = []
    for (const [name, url, path] of targets) figures.push(await measure(name, url, path, ready))
    report(ready, figures)
  } finally {
    stop()
  }
}

function report (ready: Ready, figures: Figures[]) {
  const bare = figures[0]
  const polling = figures[1]
  console.log(`\nconnector polling — ${ready.events.toLocaleString('en')} events in one store, ${ready.database}, ${CONNECTIONS} connections, ${DURATION} s each`)
  console.log('| endpoint | requests/s | p99 (ms) | vs bare route | non-2xx |')
  console.log('|---|---:|---:|---:|---:|')
  for (const f of figures) {
    console.log(`| ${f.name} \`${f.path}\` | ${f.rps.toFixed(0)} | ${f.p99} | ${(f.rps / bare.rps).toFixed(3)} | ${f.non2xx} |`)
  }
  const cursor = figures[2]
  if (cursor) console.log(`\npolling / event log cursor: ${(polling.rps / cursor.rps).toFixed(2)}× the requests/s, p99 ${polling.p99} ms vs ${cursor.p99} ms`)
  else console.log('\nGET /outbound-webhooks/events is not in this build: compared with the bare route only')
  if (figures.some((f) => f.non2xx > 0)) console.log('warning: some answers were not 2xx; the figures are not valid')
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
