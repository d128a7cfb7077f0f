/**
 * The SDK against the live service over real HTTP: a listening app, a fresh tenant per test, and only the SDK's
 * public exports on the client side (the app and factories set the scene).
 */
import t, { type Test } from 'tap'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { build } from '../../test/helper.js'
import { makeTenant, type Tenant } from '../../test/factories.js'
import { deliverUntil, receiver, testWorker } from '../../test/webhooks/support.js'
import {
  ApiError,
  createClient,
  eventCursor,
  pages,
  paginate,
  pollEvents,
  unwrap,
  verifyWebhook,
  type EvidenceHubClient
} from '../src/index.js'

async function live (
  t: Test
): Promise<{ baseUrl: string, tenant: Tenant, client: EvidenceHubClient, app: Awaited<ReturnType<typeof build>> }> {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const tenant = await makeTenant(app)
  return { app, baseUrl, tenant, client: createClient({ baseUrl, apiKey: tenant.key, storeEnvId: tenant.storeId }) }
}

async function collect<T> (items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

function products (n: number, prefix = 'p') {
  return Array.from({ length: n }, (_, i) => ({ platformProductId: `${prefix}-${i + 1}`, title: `Product ${i + 1}` }))
}

t.test('typed calls carry the key and the store: products upserted and listed, a review listed, a key created', async (t) => {
  const { baseUrl, tenant, client } = await live(t)
  const upsert = unwrap(await client.PUT('/v1/products', { body: { products: products(2) } }))
  t.same({ received: upsert.received, upserted: upsert.upserted, failed: upsert.failed }, { received: 2, upserted: 2, failed: 0 })

  const listed = unwrap(await client.GET('/v1/products', { params: { query: { limit: 10 } } }))
  t.same(listed.data.map((p) => p.platformProductId).sort(), ['p-1', 'p-2'])
  t.equal(listed.meta.total, 2)

  // A storefront call: no key, the store header and an allowed Origin.
  const storefront = createClient({ baseUrl, storeEnvId: tenant.storeId, headers: { origin: 'https://shop.example' } })
  const submitted = unwrap(await storefront.POST('/v1/reviews', {
    body: { productId: 'p-1', rating: 5, body: 'Sturdy and quick to arrive.', authorName: 'Ada', authorEmail: 'ada@example.test' }
  }))
  t.equal(submitted.status, 'pending')
  const reviews = unwrap(await client.GET('/v1/reviews', {}))
  t.same(reviews.data.map((r) => [r.id, r.rating, r.productId]), [[submitted.id, 5, 'p-1']])

  const created = unwrap(await client.POST('/v1/api-keys', { body: { name: 'SDK reader', role: 'viewer', scopes: ['reviews:read'] } }))
  t.match(created.secret, /^svc_/)
  const reader = createClient({ baseUrl, apiKey: created.secret, storeEnvId: tenant.storeId })
  const readerList = await reader.GET('/v1/reviews', {})
  t.equal(readerList.response.status, 200, 'the new key works through its own client')
  const forbidden = await reader.GET('/v1/products', {})
  t.equal(forbidden.error?.code, 'insufficient_scope', 'an error comes back typed as { message, code }')
})

t.test('paginate walks every page of a list; pages gives each page with its meta', async (t) => {
  const { client } = await live(t)
  unwrap(await client.PUT('/v1/products', { body: { products: products(7) } }))
  const all = (await collect(paginate(client, '/v1/products', { limit: 3 }))).map((p) => p.platformProductId)
  t.equal(all.length, 7)
  t.same([...all].sort(), products(7).map((p) => p.platformProductId).sort(), 'every item once')

  const metas = (await collect(pages(client, '/v1/products', { limit: 3 }))).map((page) => page.meta)
  t.same(metas.map((m) => [m.page, m.totalPages, m.total]), [[1, 3, 7], [2, 3, 7], [3, 3, 7]])

  const fromTwo = await collect(paginate(client, '/v1/products', { limit: 3, page: 2 }))
  t.equal(fromTwo.length, 4, 'a given page is where it starts')
})

t.test('eventCursor reads the log after writes and resumes after the last event processed', async (t) => {
  const { client } = await live(t)
  unwrap(await client.PUT('/v1/products', { body: { products: products(3) } }))
  const first = await collect(eventCursor(client, { limit: 2 }))
  t.same(first.map((e) => e.type), ['product.upserted', 'product.upserted', 'product.upserted'], 'across pages of 2')
  t.same(first.map((e) => e.data.platformProductId), ['p-1', 'p-2', 'p-3'])

  unwrap(await client.PUT('/v1/products', { body: { products: products(2, 'q') } }))
  const resumed = await collect(eventCursor(client, { since: first[first.length - 1].id }))
  t.same(resumed.map((e) => e.data.platformProductId), ['q-1', 'q-2'], 'only the events after the given id')

  const controller = new AbortController()
  const polled = []
  for await (const event of pollEvents(client, { since: first[1].id, intervalMs: 10, signal: controller.signal })) {
    polled.push(event.id)
    if (polled.length === 3) controller.abort()
  }
  t.same(polled, [first[2].id, ...resumed.map((e) => e.id)], 'pollEvents yields the same log and stops on abort')
})

t.test('errors surface with their documented code: returned by calls, thrown by unwrap and the helpers', async (t) => {
  const { baseUrl, tenant, client } = await live(t)
  const elsewhere = createClient({ baseUrl, apiKey: tenant.key, storeEnvId: 'env_doesnotexist' })
  const missing = await elsewhere.GET('/v1/products', {})
  t.equal(missing.response.status, 404)
  t.equal(missing.error?.code, 'store_env_not_found')
  t.type(missing.error?.message, 'string')

  const invalid = await client.GET('/v1/products', { params: { query: { limit: 0 } } })
  t.equal(invalid.error?.code, 'invalid_request')
  t.ok(invalid.error && 'errors' in invalid.error && invalid.error.errors?.length, 'each problem is listed')

  const thrown = await elsewhere.GET('/v1/reviews', {}).then(unwrap, () => null).catch((error: unknown) => error)
  t.ok(thrown instanceof ApiError, 'unwrap throws an ApiError')
  t.match(thrown, { name: 'ApiError', status: 404, code: 'store_env_not_found', requestId: /^req_/ })

  await t.rejects(collect(eventCursor(client, { since: 'not-a-cursor' })), { code: 'invalid_request', status: 400 })
  const anonymous = createClient({ baseUrl, storeEnvId: tenant.storeId })
  await t.rejects(collect(paginate(anonymous, '/v1/products')), { code: 'missing_credentials', status: 401 })
})

t.test('verifyWebhook accepts a real delivery and refuses a tampered body, an old timestamp and a wrong secret', async (t) => {
  const { app, tenant, client } = await live(t)
  const hook = await receiver(t)
  const webhook = unwrap(await client.POST('/v1/outbound-webhooks', { body: { url: hook.url, events: ['product.upserted'] } }))
  unwrap(await client.PUT('/v1/products', { body: { products: products(1) } }))
  await deliverUntil(testWorker(t, app, [tenant.storeId]), hook.received, 1)
  t.equal(hook.received.length, 1, 'the product.upserted event was delivered')
  const [delivery] = hook.received

  const ok = verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: webhook.secret })
  t.ok(ok.ok, 'a real delivery verifies, with Node\'s headers')
  t.ok(
    verifyWebhook({
      payload: Buffer.from(delivery.body),
      headers: new Headers(delivery.headers as Record<string, string>),
      secret: webhook.secret
    }).ok,
    'and with raw bytes and fetch Headers'
  )
  t.equal(JSON.parse(delivery.body).type, 'product.upserted')

  const tampered = delivery.body.replace('p-1', 'p-2')
  t.not(tampered, delivery.body)
  t.same(verifyWebhook({ payload: tampered, headers: delivery.headers, secret: webhook.secret }), {
    ok: false,
    reason: 'signature_mismatch'
  })
  t.same(verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: 'whsec_wrong' }), {
    ok: false,
    reason: 'signature_mismatch'
  })
  const later = Date.now() + 10 * 60_000
  t.same(verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: webhook.secret, now: later }), {
    ok: false,
    reason: 'timestamp_out_of_tolerance'
  })
  t.ok(
    verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: webhook.secret, now: later, toleranceSeconds: 3600 }).ok,
    'the tolerance is the caller\'s'
  )
  t.same(verifyWebhook({ payload: delivery.body, headers: {}, secret: webhook.secret }), { ok: false, reason: 'missing_header' })
  t.same(verifyWebhook({ payload: delivery.body, headers: { 'X-Service-Signature-V2': 'v1=zz' }, secret: webhook.secret }), {
    ok: false,
    reason: 'malformed_header'
  })
})

t.test('verifyWebhook accepts either header set of a real delivery: ours alone, or the Standard Webhooks ones alone', async (t) => {
  const { app, tenant, client } = await live(t)
  const hook = await receiver(t)
  const webhook = unwrap(await client.POST('/v1/outbound-webhooks', { body: { url: hook.url, events: ['product.upserted'] } }))
  unwrap(await client.PUT('/v1/products', { body: { products: products(1) } }))
  await deliverUntil(testWorker(t, app, [tenant.storeId]), hook.received, 1)
  t.equal(hook.received.length, 1)
  const [delivery] = hook.received
  const all = delivery.headers as Record<string, string>
  const pick = (...names: string[]) => Object.fromEntries(names.map((name) => [name, all[name]]))
  const ours = pick('x-service-signature-v2')
  const standard = pick('webhook-id', 'webhook-timestamp', 'webhook-signature')
  const secret = webhook.secret
  const verify = (headers: Record<string, string>, payload = delivery.body, more: { now?: number, secret?: string } = {}) =>
    verifyWebhook({ payload, headers, secret, ...more })

  t.match(verify(all), { ok: true, scheme: 'x-service-signature-v2' }, 'both sent: ours is checked first')
  t.match(verify(ours), { ok: true, scheme: 'x-service-signature-v2' })
  t.match(verify(standard), { ok: true, scheme: 'standard-webhooks', timestamp: Number(standard['webhook-timestamp']) })
  t.ok(verifyWebhook({ payload: Buffer.from(delivery.body), headers: new Headers(standard), secret }).ok, 'bytes and fetch Headers')

  const tampered = delivery.body.replace('p-1', 'p-2')
  t.same(verify(standard, tampered), { ok: false, reason: 'signature_mismatch' })
  t.same(verify(standard, delivery.body, { secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}` }), {
    ok: false,
    reason: 'signature_mismatch'
  })
  t.same(verify({ ...standard, 'webhook-id': 'dlv_0' }), { ok: false, reason: 'signature_mismatch' }, 'the id is signed')
  t.same(verify(standard, delivery.body, { now: Date.now() + 10 * 60_000 }), { ok: false, reason: 'timestamp_out_of_tolerance' })
  t.same(verify(pick('webhook-timestamp', 'webhook-signature')), { ok: false, reason: 'missing_header' }, 'no webhook-id')
  t.same(verify({ ...standard, 'webhook-signature': 'v2,abc' }), { ok: false, reason: 'malformed_header' })
  t.same(verify({ ...standard, 'webhook-timestamp': 'soon' }), { ok: false, reason: 'malformed_header' })

  t.match(verify({ ...all, 'x-service-signature-v2': 't=1,v1=' + '0'.repeat(64) }), { ok: true, scheme: 'standard-webhooks' },
    'with both sent, a valid Standard Webhooks set is enough')
  t.same(verify({ ...standard, 'x-service-signature-v2': ours['x-service-signature-v2'] }, tampered), {
    ok: false,
    reason: 'signature_mismatch'
  }, 'neither set verifies a tampered body')
})

t.test('verifyWebhook accepts a message signed by the standardwebhooks library, and refuses it with another key', async (t) => {
  const secret = `whsec_${Buffer.from('0123456789abcdef01234567').toString('base64')}`
  const payload = JSON.stringify({ id: 'evt_1', type: 'review.created', data: {} })
  const now = Date.parse('2026-11-23T12:00:00Z')
  const headers = {
    'webhook-id': 'dlv_42',
    'webhook-timestamp': String(now / 1000),
    'webhook-signature': new Webhook(secret).sign('dlv_42', new Date(now), payload)
  }
  t.same(verifyWebhook({ payload, headers, secret, now }), { ok: true, timestamp: now / 1000, scheme: 'standard-webhooks' })
  const rotated = { ...headers, 'webhook-signature': `v1,${'A'.repeat(43)}= ${headers['webhook-signature']}` }
  t.ok(verifyWebhook({ payload, headers: rotated, secret, now }).ok, 'any one of several space-separated signatures')
  t.same(verifyWebhook({ payload, headers, secret: 'whsec_' + Buffer.from('another key of 24 bytes!').toString('base64'), now }), {
    ok: false,
    reason: 'signature_mismatch'
  })
})
