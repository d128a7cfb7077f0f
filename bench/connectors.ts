/**
 * `npm run bench:connectors`: requests/s and p99 of polling `GET /connectors/triggers/review.created` over a store
 * with 1,000,000 events, as ratios against a bare fastify route and against `GET /outbound-webhooks/events` (the
 * event log cursor), all measured in the same run and recorded in bench/RESULTS.md. The servers run in a child
 * process (bench/connectors-server.ts) so autocannon does not share their event loop. Options: BENCH_DURATION (s),
 * BENCH_CONNECTIONS, BENCH_DATABASE_URL (MariaDB instead of the embedded SQLite), BENCH_EVENTS.
 */
import { fork } from 'node:child_process'
import { join } from 'node:path'
import type autocannon from 'autocannon'
import { measure, record, table, type Figure } from './lib.js'

interface Ready {
  appUrl: string
  bareUrl: string
  storeId: string
  keys: string[]
  targets: Record<string, string>
  events: number
  database: string
}

function startServer (): Promise<{ ready: Ready, stop: () => void }> {
  const child = fork(join(import.meta.dirname, 'connectors-server.ts'), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  return new Promise((resolve, reject) => {
    child.once('message', (ready) => resolve({ ready: ready as Ready, stop: () => child.disconnect() }))
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)))
  })
}

/** Round-robin over many keys so no credential reaches its rate limit during the run. */
function rotatingKey (ready: Ready, path: string): autocannon.Request[] {
  let next = 0
  return [{
    method: 'GET',
    path,
    setupRequest: (request) => ({
      ...request,
      headers: { ...request.headers, authorization: `Bearer ${ready.keys[next++ % ready.keys.length]}`, 'x-store-env-id': ready.storeId }
    })
  }]
}

async function main () {
  const { ready, stop } = await startServer()
  try {
    const targets: Array<[string, autocannon.Options]> = [
      ['bare fastify route', { url: ready.bareUrl }],
      [`connector polling \`${ready.targets.polling}\``, { url: ready.appUrl, requests: rotatingKey(ready, ready.targets.polling) }]
    ]
    if (ready.targets.cursor) {
      targets.push([`event log cursor \`${ready.targets.cursor}\``, {
        url: ready.appUrl,
        requests: rotatingKey(ready, ready.targets.cursor)
      }])
    }
    for (const [name, options] of targets) await measure(`warm-up: ${name}`, { ...options, duration: 2 })
    const figures: Figure[] = []
    for (const [name, options] of targets) figures.push(await measure(name, options))
    report(ready, figures)
  } finally {
    stop()
  }
}

function report (ready: Ready, figures: Figure[]) {
  const [bare, polling, cursor] = figures
  const lines = [
    `One store with ${ready.events.toLocaleString('en')} events of the nine types (about a quarter \`review.created\`), ${ready.database}; ` +
      'the full pipeline (key lookup, store check, rate limiter, scope check, the query, serialization), default limit 50. ' +
      `${ready.keys.length} viewer keys in rotation, so no per-key budget is reached (non-2xx should be 0).`,
    '',
    table(figures, bare),
    ''
  ]
  if (cursor) {
    lines.push(`Polling against the event log cursor: ${(polling.rps / cursor.rps).toFixed(2)}× the requests/s; p99 ${polling.p99} ms against ${cursor.p99} ms.`)
  } else {
    lines.push('`GET /outbound-webhooks/events` is not in this build: compared with the bare route only.')
  }
  lines.push('', 'The poll reads `limit` entries of the `(store_env_id, type, id)` index (forced on MariaDB, whose optimizer would ' +
    'otherwise walk `(store_env_id, id)` backwards through every newer event of other types), so its cost does not grow with the store.')
  record('connectors', `bench:connectors — polling a trigger over 1,000,000 events (${ready.database})`, lines.join('\n'))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
