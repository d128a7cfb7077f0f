/**
 * The client's retries against a real HTTP server on 127.0.0.1 that answers each attempt as the test says: a 429
 * with Retry-After, a 503, a dropped connection, a 409 of a key still in progress. Waits go through an injected
 * `sleep` that records them and returns at once, so nothing here depends on the wall clock.
 */
import t, { type Test } from 'tap'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ApiError, createClient, parseRetryAfter, unwrap, type CreateClientOptions, type RetryEvent } from '../src/index.js'

interface Seen { method: string, url: string, headers: IncomingHttpHeaders, body: string }
/** How to answer an attempt: a status with headers and a JSON body, `reset` (drop the socket), or `hold` (never answer). */
type Answer = { status: number, headers?: Record<string, string>, body?: unknown } | 'reset' | 'hold'

const OK: Answer = { status: 200, body: { data: [], meta: { total: 0, page: 1, limit: 10, totalPages: 0 } } }
const CREATED: Answer = { status: 201, body: { id: 'owh_1', secret: 'whsec_x' } }
const HOOK = { url: 'https://you.example/hooks', events: ['*'] }

function send (res: ServerResponse, answer: Answer) {
  if (answer === 'hold') return
  if (answer === 'reset') return res.socket?.destroy()
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
  res.end(JSON.stringify(answer.body ?? { message: `HTTP ${answer.status}`, code: `http_${answer.status}` }))
}

/** A server answering the n-th request with `answers[n]` (the last one once they run out); it records every request. */
async function server (t: Test, answers: Answer[]) {
  const seen: Seen[] = []
  const http = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      send(res, answers[Math.min(seen.length, answers.length) - 1])
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => {
    http.closeAllConnections()
    http.close(() => resolve())
  }))
  return { baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, seen }
}

/** A client whose waits are recorded instead of slept, with a fixed jitter draw unless given another. */
function client (baseUrl: string, options: Partial<CreateClientOptions> = {}, random = () => 0.5) {
  const waits: number[] = []
  const retries: RetryEvent[] = []
  const onRetry = (event: RetryEvent) => { retries.push(event) }
  const api = createClient({
    baseUrl,
    apiKey: 'svc_test',
    storeEnvId: 'env_test',
    ...options,
    retry: options.retry === false ? false : { random, sleep: async (ms) => { waits.push(ms) }, onRetry, ...options.retry }
  })
  return { api, waits, retries }
}

const rateLimited = (seconds: string): Answer => ({
  status: 429,
  headers: { 'retry-after': seconds },
  body: { message: `Too many requests, retry after ${seconds} seconds`, code: 'rate_limited' }
})
const unavailable: Answer = { status: 503, body: { message: 'The database is unreachable', code: 'service_unavailable' } }

t.test('a 429 is retried after its Retry-After, plus at most a tenth of it as jitter', async (t) => {
  const { baseUrl, seen } = await server(t, [rateLimited('2'), OK])
  const { api, waits, retries } = client(baseUrl)
  const result = await api.GET('/v1/reviews', {})
  t.equal(result.response.status, 200)
  t.equal(seen.length, 2, 'two attempts')
  t.same(waits, [2000 + 0.5 * 200], 'Retry-After 2 s, plus half of the 200 ms of jitter the draw of 0.5 gives')
  t.match(retries, [{ attempt: 1, status: 429, method: 'GET' }])
  t.equal(seen[1].headers.authorization, 'Bearer svc_test', 'the retry carries the credential too')
})

t.test('a Retry-After given as an HTTP date is waited until that date', async (t) => {
  const now = Date.parse('2026-11-28T10:00:00Z')
  t.equal(parseRetryAfter('Sat, 28 Nov 2026 10:00:07 GMT', now), 7000)
  t.equal(parseRetryAfter('Sat, 28 Nov 2026 09:59:00 GMT', now), 0, 'a date past is no wait')
  t.equal(parseRetryAfter('3', now), 3000)
  t.equal(parseRetryAfter('soon', now), null, 'unreadable: as if absent')
  t.equal(parseRetryAfter(null, now), null)

  const at = new Date(Date.now() + 3_600_000).toUTCString()
  const { baseUrl, seen } = await server(t, [{ status: 429, headers: { 'retry-after': at } }, OK])
  const { api } = client(baseUrl)
  t.equal((await api.GET('/v1/reviews', {})).response.status, 429, 'an hour away is past the cap: not waited for')
  t.equal(seen.length, 1)
})

t.test('a 503 without Retry-After is retried after a full-jitter backoff that doubles up to its cap', async (t) => {
  const { baseUrl, seen } = await server(t, [unavailable, unavailable, unavailable, unavailable, OK])
  const { api, waits } = client(baseUrl, { retry: { baseDelayMs: 100, maxDelayMs: 300 } }, () => 0.5)
  t.equal((await api.GET('/v1/reviews', {})).response.status, 200)
  t.equal(seen.length, 5)
  t.same(waits, [50, 100, 150, 150], 'half of 100, 200, then of the 300 cap')
})

t.test('the jitter stays within [0, the backoff): the smallest and largest draws', async (t) => {
  const { baseUrl } = await server(t, [unavailable, unavailable, OK])
  const low = client(baseUrl, { retry: { baseDelayMs: 100 } }, () => 0)
  await low.api.GET('/v1/reviews', {})
  t.same(low.waits, [0, 0])
  const { baseUrl: other } = await server(t, [unavailable, unavailable, OK])
  const high = client(other, { retry: { baseDelayMs: 100 } }, () => 0.999)
  await high.api.GET('/v1/reviews', {})
  t.same(high.waits, [99.9, 199.8])
})

t.test('a GET whose connection is reset is retried', async (t) => {
  const { baseUrl, seen } = await server(t, ['reset', OK])
  const { api, retries } = client(baseUrl)
  t.equal((await api.GET('/v1/reviews', {})).response.status, 200)
  t.equal(seen.length, 2)
  t.equal(retries[0].status, undefined)
  t.match(retries[0].error, { name: 'TypeError', message: 'fetch failed' })
})

t.test('a GET to a port nobody listens on is tried maxAttempts times, then throws the network error', async (t) => {
  const { baseUrl } = await server(t, [OK])
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  t.not(baseUrl, `http://127.0.0.1:${port}`)
  const { api, retries } = client(`http://127.0.0.1:${port}`, { retry: { maxAttempts: 3 } })
  await t.rejects(api.GET('/v1/reviews', {}), { name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNREFUSED' } })
  t.equal(retries.length, 2, 'three attempts: two retries')
})

t.test('a POST is sent with an Idempotency-Key of the SDK, the same on every attempt, with the same body', async (t) => {
  const { baseUrl, seen } = await server(t, ['reset', unavailable, CREATED])
  const { api } = client(baseUrl)
  const hook = unwrap(await api.POST('/v1/outbound-webhooks', { body: HOOK }))
  t.equal(hook.id, 'owh_1')
  t.equal(seen.length, 3)
  const keys = seen.map((s) => s.headers['idempotency-key'])
  t.match(keys[0], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a random UUID')
  t.same(keys, [keys[0], keys[0], keys[0]])
  t.same(seen.map((s) => JSON.parse(s.body)), [HOOK, HOOK, HOOK])

  await api.POST('/v1/outbound-webhooks', { body: HOOK })
  t.not(seen[3].headers['idempotency-key'], keys[0], 'each call has its own key')
})

t.test('a PUT carries a key of the SDK too, the same on its retry', async (t) => {
  const { baseUrl, seen } = await server(t, ['reset', { status: 200, body: { received: 1, upserted: 1, failed: 0, results: [] } }])
  const { api } = client(baseUrl)
  await api.PUT('/v1/products', { body: { products: [{ platformProductId: 'p-1', title: 'One' }] } })
  t.equal(seen.length, 2)
  t.ok(seen[0].headers['idempotency-key'])
  t.equal(seen[1].headers['idempotency-key'], seen[0].headers['idempotency-key'])
})

t.test('a GET carries no key', async (t) => {
  const { baseUrl, seen } = await server(t, [OK])
  await client(baseUrl).api.GET('/v1/reviews', {})
  t.equal(seen[0].headers['idempotency-key'], undefined)
})

t.test('a POST keeps the Idempotency-Key its caller gave, on every attempt', async (t) => {
  const { baseUrl, seen } = await server(t, ['reset', CREATED])
  const { api } = client(baseUrl)
  await api.POST('/v1/outbound-webhooks', { body: HOOK, headers: { 'Idempotency-Key': 'order-42-hook' } })
  t.same(seen.map((s) => s.headers['idempotency-key']), ['order-42-hook', 'order-42-hook'])
})

t.test('with autoIdempotencyKey off, a POST without a key is not repeated after a network error', async (t) => {
  const { baseUrl, seen } = await server(t, ['reset', CREATED])
  const { api, retries } = client(baseUrl, { autoIdempotencyKey: false })
  await t.rejects(api.POST('/v1/outbound-webhooks', { body: HOOK }), { name: 'TypeError', message: 'fetch failed' })
  t.equal(seen.length, 1, 'one attempt: the server may have applied it')
  t.equal(seen[0].headers['idempotency-key'], undefined, 'and no key was sent')
  t.same(retries, [])
})

t.test('with autoIdempotencyKey off, a POST without a key is not repeated after a 503', async (t) => {
  const { baseUrl, seen } = await server(t, [unavailable, CREATED])
  const { api } = client(baseUrl, { autoIdempotencyKey: false })
  t.equal((await api.POST('/v1/outbound-webhooks', { body: HOOK })).response.status, 503)
  t.equal(seen.length, 1)
})

t.test('a client without a credential (a storefront\'s, whose calls the service keeps no key for) sends no key of its own', async (t) => {
  const { baseUrl, seen } = await server(t, ['reset', CREATED])
  const storefront = createClient({ baseUrl, storeEnvId: 'env_test', retry: { sleep: async () => {} } })
  await t.rejects(storefront.POST('/v1/outbound-webhooks', { body: HOOK }), { message: 'fetch failed' })
  t.equal(seen.length, 1, 'not repeated')
  t.equal(seen[0].headers['idempotency-key'], undefined)

  const { baseUrl: other, seen: otherSeen } = await server(t, ['reset', CREATED])
  const withHeader = createClient({ baseUrl: other, headers: { Authorization: 'Bearer svc_x' }, retry: { sleep: async () => {} } })
  t.equal((await withHeader.POST('/v1/outbound-webhooks', { body: HOOK })).response.status, 201)
  t.equal(otherSeen.length, 2, 'a credential in the client\'s headers counts')
  t.ok(otherSeen[0].headers['idempotency-key'])
})

t.test('a POST without a key is still retried after a 429, which the service answers before doing anything', async (t) => {
  const { baseUrl, seen } = await server(t, [rateLimited('1'), CREATED])
  const { api } = client(baseUrl, { autoIdempotencyKey: false })
  t.equal((await api.POST('/v1/outbound-webhooks', { body: HOOK })).response.status, 201)
  t.equal(seen.length, 2)
})

t.test('a 409 idempotency_key_in_progress is retried after a short backoff; another 409 is an answer', async (t) => {
  const inProgress: Answer = {
    status: 409,
    body: { message: 'A request with this key is in progress', code: 'idempotency_key_in_progress' }
  }
  const { baseUrl, seen } = await server(t, [inProgress, inProgress, CREATED])
  const { api, waits } = client(baseUrl, { retry: { baseDelayMs: 200 } })
  t.equal((await api.POST('/v1/outbound-webhooks', { body: HOOK })).response.status, 201)
  t.equal(seen.length, 3)
  t.same(waits, [100, 200])

  const conflict: Answer = { status: 409, body: { message: 'Already exists', code: 'conflict' } }
  const { baseUrl: other, seen: otherSeen } = await server(t, [conflict, CREATED])
  const second = client(other)
  const result = await second.api.POST('/v1/outbound-webhooks', { body: HOOK })
  t.equal(result.response.status, 409)
  t.equal(result.error?.code, 'conflict')
  t.equal(otherSeen.length, 1)
})

t.test('answers that no retry can change are returned at once: 400, 404, 500', async (t) => {
  for (const status of [400, 404, 500]) {
    const { baseUrl, seen } = await server(t, [{ status }, OK])
    const { api } = client(baseUrl)
    t.equal((await api.GET('/v1/reviews', {})).response.status, status)
    t.equal(seen.length, 1, `${status}: one attempt`)
  }
})

t.test('a Retry-After longer than maxRetryAfterMs is given up on at once: unwrap throws an ApiError carrying retryAfter', async (t) => {
  const { baseUrl, seen } = await server(t, [rateLimited('120'), OK])
  const { api, waits } = client(baseUrl, { retry: { maxRetryAfterMs: 60_000 } })
  const error = await api.GET('/v1/reviews', {}).then(unwrap).catch((err: unknown) => err)
  t.ok(error instanceof ApiError)
  t.match(error, { status: 429, code: 'rate_limited', retryAfter: 120 })
  t.equal(seen.length, 1)
  t.same(waits, [])
})

t.test('retries stop after maxAttempts, answering the last 503', async (t) => {
  const { baseUrl, seen } = await server(t, [unavailable])
  const { api, retries } = client(baseUrl, { retry: { maxAttempts: 4 } })
  const result = await api.GET('/v1/reviews', {})
  t.equal(result.response.status, 503)
  t.equal(result.error?.code, 'service_unavailable')
  t.equal(seen.length, 4)
  t.same(retries.map((r) => r.attempt), [1, 2, 3])
})

t.test('retries stop before a wait that would pass maxTotalWaitMs', async (t) => {
  const { baseUrl, seen } = await server(t, [rateLimited('3')])
  const { api, waits } = client(baseUrl, { retry: { maxAttempts: 10, maxTotalWaitMs: 7_000 } }, () => 0)
  t.equal((await api.GET('/v1/reviews', {})).response.status, 429)
  t.same(waits, [3000, 3000], 'a third wait of 3 s would make 9 s')
  t.equal(seen.length, 3)
})

t.test('retry: false sends each request once', async (t) => {
  const { baseUrl, seen } = await server(t, [rateLimited('1'), OK])
  const { api } = client(baseUrl, { retry: false })
  t.equal((await api.GET('/v1/reviews', {})).response.status, 429)
  t.equal(seen.length, 1)
})

t.test('an abort during the wait for Retry-After ends the call at once with the abort', async (t) => {
  const { baseUrl, seen } = await server(t, [rateLimited('30'), OK])
  const controller = new AbortController()
  // The real sleep: the abort has to cut a 30 s wait short.
  const api = createClient({ baseUrl, retry: { onRetry: () => setImmediate(() => controller.abort()) } })
  await t.rejects(api.GET('/v1/reviews', { signal: controller.signal }), { name: 'AbortError' })
  t.equal(seen.length, 1)
})

t.test('an attempt that outlives timeoutMs is a network error, retried for a GET', async (t) => {
  const { baseUrl, seen } = await server(t, ['hold', OK])
  const { api, retries } = client(baseUrl, { retry: { timeoutMs: 300 } })
  t.equal((await api.GET('/v1/reviews', {})).response.status, 200)
  t.equal(seen.length, 2)
  t.match(retries[0].error, { name: 'TimeoutError' })
})
