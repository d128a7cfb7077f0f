/**
 * `npm run test:n8n`: the n8n node package proven inside a real n8n. A listening evidence-hub (MySQL + Redis, its own
 * database) and a real n8n (installed once into a cache folder, scripts/n8n-e2e/n8n.ts) with the package installed
 * from its npm tarball; then, through n8n's own commands:
 *
 * 1. an OAuth2 credential whose access token has expired: the action workflow's first call gets 401, n8n refreshes
 *    and stores the rotated pair, and the workflow upserts products and reads them back;
 * 2. an instant-trigger workflow, activated: it subscribes its REST hook, and a review written into the store reaches
 *    the workflow once, as a signed `review.created` delivery;
 * 3. a polling-trigger workflow, activated: its first poll takes note of the log, and it then starts exactly with the
 *    events that came after, each once.
 *
 * Every check prints `ok` or `not ok`; the last line is `N passed, N failed`, and the exit code is non-zero on any
 * failure (an n8n command that fails, a node error, a missed or a duplicated item).
 */
import { createServer, type Server } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { freePort } from '../../test/oauth/browser.js'
import { connectByOAuth, expired, startService, waitFor } from './service.js'
import { ensureN8n, freshUserFolder, installPackage, jsonOf, n8n } from './n8n.js'
import { credentials, IDS, PRODUCTS, workflows } from './workflows.js'

const started = Date.now()
const work = mkdtempSync(join(tmpdir(), 'evidence-hub-n8n-'))
let passed = 0
let failed = 0
const children: ChildProcess[] = []
let receiverServer: Server | undefined
let stopping = false

function log (line: string) {
  console.log(`# ${line} (${Math.round((Date.now() - started) / 1000)} s)`)
}

function check (ok: boolean, name: string, detail?: unknown) {
  if (ok) passed++
  else failed++
  console.log(`${ok ? 'ok' : 'not ok'} ${passed + failed} - ${name}`)
  if (!ok && detail !== undefined) console.log(`  # ${JSON.stringify(detail).slice(0, 2000)}`)
}

/** What the workflows forward, by path (`/instant`, `/polling`). */
async function receiver (): Promise<{ url: string, got: Record<string, Array<Record<string, any>>> }> {
  const got: Record<string, Array<Record<string, any>>> = {}
  receiverServer = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      ;(got[req.url ?? '/'] ??= []).push(JSON.parse(Buffer.concat(chunks).toString() || '{}'))
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  const port = await freePort()
  await new Promise<void>((resolve) => receiverServer!.listen(port, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${port}`, got }
}

async function api (base: string, key: string, store: string, method: string, path: string, body?: unknown) {
  const init = {
    method,
    headers: { authorization: `Bearer ${key}`, 'x-store-env-id': store, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined
  }
  const res = await fetch(`${base}${path}`, init).catch((err: Error) => {
    throw new Error(`${method} ${path}: ${err.message} (${String((err as { cause?: unknown }).cause)})`)
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : null
}

async function main () {
  const bin = ensureN8n(log)
  log('n8n is installed')
  const servicePort = await freePort()
  let n8nPort = await freePort()
  while (n8nPort === servicePort) n8nPort = await freePort()
  const userFolder = freshUserFolder(work)
  const tarball = installPackage(userFolder, work)
  log(`installed ${tarball.split('/').pop()} into ${userFolder}/.n8n/nodes`)

  const n = n8n(bin, userFolder, n8nPort)
  const callback = `${n.url}/rest/oauth2-credential/callback`
  const service = await startService(servicePort, join(work, 'service.log'), callback)
  children.push(service.process)
  service.process.on('exit', (code, signal) => { if (!stopping) log(`the service exited (${code ?? signal})`) })
  log(`evidence-hub listens at ${service.base}, n8n will at ${n.url}`)
  const call = (method: string, path: string, body?: unknown) => api(service.base, service.apiKey, service.store, method, path, body)

  const token = await connectByOAuth(service, { id: service.clientId, secret: service.clientSecret }, callback)
  check(token.store_env_id === service.store, 'the token response names the store chosen at consent', token)
  const stale = await expired(token.access_token)
  const refused = await fetch(`${service.base}/v1/connectors/me`, {
    headers: { authorization: `Bearer ${stale}`, 'x-store-env-id': service.store }
  })
  check(refused.status === 401, 'the expired access token is refused with 401', refused.status)

  const rx = await receiver()
  writeFileSync(
    join(work, 'credentials.json'),
    JSON.stringify(credentials({
      base: service.base,
      clientId: service.clientId,
      clientSecret: service.clientSecret,
      token: { ...token, access_token: stale },
      apiKey: service.apiKey,
      store: service.store
    }))
  )
  writeFileSync(join(work, 'workflows.json'), JSON.stringify(workflows(rx.url)))
  await n.command(['import:credentials', `--input=${join(work, 'credentials.json')}`])
  await n.command(['import:workflow', `--input=${join(work, 'workflows.json')}`])
  log('imported the credentials and workflows')

  // 1. The action workflow, with the expired token.
  let run: any
  try {
    run = jsonOf(await n.command(['execute', `--id=${IDS.action}`, '--rawOutput']))
  } catch (err) {
    const e = err as { status?: number, stdout?: string, stderr?: string }
    check(false, 'the action workflow runs', { status: e.status, stdout: e.stdout?.slice(-3000), stderr: e.stderr?.slice(-3000) })
    return
  }
  const runData = run.data?.resultData?.runData ?? {}
  const nodeErrors = Object.entries(runData).flatMap(([name, runs]) =>
    (runs as Array<{ error?: { message: string } }>).filter((r) => r.error).map((r) => `${name}: ${r.error!.message}`)
  )
  check(
    !run.data?.resultData?.error && nodeErrors.length === 0 && run.status !== 'error',
    'the action workflow ends without a node error',
    { error: run.data?.resultData?.error, nodeErrors }
  )
  const upserted = runData['Upsert products']?.[0]?.data?.main?.[0]?.map((item: { json: unknown }) => item.json)
  check(
    JSON.stringify(upserted) === JSON.stringify([{ received: 3, upserted: 3, failed: 0, errors: [] }]),
    'it upserts the three products in one batch',
    upserted
  )
  const read = (runData['Read products']?.[0]?.data?.main?.[0] ?? []).map((item: { json: { platformProductId: string, title: string } }) =>
    `${item.json.platformProductId}:${item.json.title}`
  ).sort()
  check(
    JSON.stringify(read) === JSON.stringify(PRODUCTS.map((p) => `${p.platformProductId}:${p.title}`).sort()),
    'and reads back exactly those products',
    read
  )
  await n.command(['export:credentials', `--id=${IDS.oauth}`, '--decrypted', `--output=${join(work, 'exported.json')}`])
  const stored =
    (JSON.parse(readFileSync(join(work, 'exported.json'), 'utf8')) as Array<{ data: { oauthTokenData: Record<string, string> } }>)[0].data
      .oauthTokenData
  check(
    stored.access_token !== stale && stored.refresh_token !== token.refresh_token && stored.store_env_id === service.store,
    'n8n refreshed the expired token and stored the rotated pair, with the store',
    { refreshed: stored.access_token !== stale, rotated: stored.refresh_token !== token.refresh_token, store: stored.store_env_id }
  )

  // 2 and 3. The triggers, under `n8n start`.
  await n.command(['update:workflow', `--id=${IDS.instant}`, '--active=true'])
  await n.command(['update:workflow', `--id=${IDS.polling}`, '--active=true'])
  const before = (await call('GET', '/v1/connectors/triggers/product.upserted?limit=100') as Array<{ id: string }>).map((e) => e.id)
  const n8nLog = join(work, 'n8n.log')
  const server = n.start(n8nLog)
  children.push(server)
  // n8n start loads every node package before it activates anything: over two minutes on a busy two-core machine.
  await waitFor(
    'n8n to activate both workflows',
    async () => (readFileSync(n8nLog, 'utf8').match(/Activated workflow/g)?.length ?? 0) >= 2 || undefined,
    300
  )
  log('n8n activated the trigger workflows')
  const hooks = (await call('GET', '/v1/connectors/hooks') as { data: Array<{ event: string, targetUrl: string, status: string }> }).data
  check(hooks.length === 1 && hooks[0].event === 'review.created' && hooks[0].targetUrl.startsWith(`${n.url}/webhook/`),
    'activating the instant workflow subscribed one REST hook to its n8n webhook URL', hooks)

  const imported = await call('POST', '/v1/imports', {
    type: 'reviews',
    items: [{
      productId: 'n8n-sweater',
      rating: 5,
      title: 'Warm and soft',
      body: 'Exactly as described.',
      authorName: 'Maya R.',
      authorEmail: 'maya@example.com',
      writtenAt: new Date().toISOString()
    }]
  })
  check(imported?.status !== undefined, 'a review is written into the store', imported)
  await call('PUT', '/v1/products', {
    products: [{ platformProductId: 'n8n-sweater', title: 'Merino Crew Sweater (new colours)' }, {
      platformProductId: 'n8n-scarf',
      title: 'Cashmere Scarf'
    }]
  })
  const created = await call('GET', '/v1/connectors/triggers/review.created?limit=10') as Array<{ id: string, reviewId: string }>
  const fresh = (await call('GET', '/v1/connectors/triggers/product.upserted?limit=100') as Array<{ id: string }>).map((e) => e.id).filter((
    id
  ) => !before.includes(id))

  await waitFor('the instant workflow to forward the delivery', async () => rx.got['/instant']?.length ? true : undefined, 60)
  await waitFor(
    'the polling workflow to forward the new events',
    async () => (rx.got['/polling']?.length ?? 0) >= fresh.length ? true : undefined,
    60
  )
  // Two more polls: a duplicate would arrive in them.
  await new Promise((resolve) => setTimeout(resolve, 11_000))
  const instant = rx.got['/instant'] ?? []
  check(
    instant.length === 1 && instant[0].id === created[0]?.id && instant[0].type === 'review.created' &&
      instant[0].reviewId === created[0]?.reviewId,
    'the instant workflow received the signed review.created delivery once, as the polled item',
    { instant, created }
  )
  const polled = (rx.got['/polling'] ?? []).map((item) => item.id as string)
  check(
    fresh.length === 2 && JSON.stringify(polled) === JSON.stringify(fresh),
    'the polling workflow emitted exactly the new events, newest first, each once, and none from before',
    { polled, fresh, before: before.length }
  )
  const errors = readFileSync(n8nLog, 'utf8').split('\n').filter((line) =>
    /\b(error|ERROR)\b/.test(line) && !/DeprecationWarning/.test(line)
  )
  check(errors.length === 0, 'n8n logged no error', errors.slice(0, 20))
  if (process.env.N8N_E2E_SCREENSHOTS === 'true') {
    const { screenshots } = await import('./screenshots.js')
    await screenshots(n.url, [
      { workflow: IDS.instant, node: 'Evidence Hub Trigger', file: 'n8n-instant-trigger.png' },
      { workflow: IDS.polling, node: 'Evidence Hub Polling Trigger', file: 'n8n-polling-trigger.png' },
      { workflow: IDS.action, node: 'Upsert products', file: 'n8n-action.png' }
    ])
    log('took the screenshots of docs/n8n.md')
  }
}

/** Stops what the run started: SIGTERM, and SIGKILL for a process still there 15 s later (n8n may hang in its shutdown). */
async function stop () {
  stopping = true
  await Promise.all(
    children.filter((child) => child.exitCode === null && child.signalCode === null).map((child) =>
      new Promise<void>((resolve) => {
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000)
        child.once('exit', () => {
          clearTimeout(kill)
          resolve()
        })
        child.kill('SIGTERM')
      })
    )
  )
  receiverServer?.closeAllConnections()
  receiverServer?.close()
}

try {
  await main()
} catch (err) {
  check(false, 'the run completes', (err as Error).stack ?? String(err))
} finally {
  await stop()
}
console.log(`# logs and files in ${work}`)
console.log(`n8n end-to-end wall time: ${Math.round((Date.now() - started) / 1000)} s`)
console.log(`${passed} passed, ${failed} failed`)
if (failed === 0 && process.env.N8N_E2E_KEEP !== 'true') rmSync(work, { recursive: true, force: true })
process.exit(failed > 0 || passed === 0 ? 1 : 0)
