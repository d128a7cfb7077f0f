import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'

async function setup (t: Parameters<typeof build>[0], options: Parameters<typeof build>[1] = {}) {
  const clock = manualClock()
  const app = await build(t, { clock, ...options })
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  return { app, tenant, clock }
}

const review = { productId: 'p1', rating: 5, body: 'Lovely', authorName: 'Ann', authorEmail: 'ann@example.test' }

t.test('a storefront review from an allowed origin is stored pending and answered with CORS headers', async (t) => {
  const { app, tenant } = await setup(t)
  const res = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, payload: review })
  t.equal(res.statusCode, 201)
  t.match(res.json(), { id: /^rev_/, status: 'pending' })
  t.equal(res.headers['access-control-allow-origin'], 'https://shop.example')
  t.equal(
    res.headers['access-control-expose-headers'],
    'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, ETag',
    'the widget may read its budget and the answer\'s ETag'
  )
  t.match(String(res.headers.vary), /Origin/)
})

t.test('a storefront call from another origin is refused with origin_not_allowed and no CORS headers', async (t) => {
  const { app, tenant } = await setup(t)
  const res = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, origin: 'https://evil.example', payload: review })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'origin_not_allowed')
  t.notOk(res.headers['access-control-allow-origin'])
})

t.test('a storefront call without an Origin header is refused with origin_not_allowed', async (t) => {
  const { app, tenant } = await setup(t)
  const res = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, origin: null, payload: review })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'origin_not_allowed')
})

t.test('a server-to-server call (no Origin) gets Vary: Origin and no CORS headers, storefront route or not', async (t) => {
  const { app, tenant } = await setup(t)
  const api = await call(app, { method: 'GET', url: '/v1/reviews', key: tenant.key, store: tenant.storeId })
  t.equal(api.statusCode, 200)
  t.equal(api.headers.vary, 'Origin')
  t.notOk(api.headers['access-control-allow-origin'])
  const widget = await storefront(app, { method: 'GET', url: '/v1/storefront/summary?productId=p1', store: tenant.storeId, origin: null })
  t.equal(widget.json().code, 'origin_not_allowed')
  t.match(String(widget.headers.vary), /Origin/)
  t.notOk(widget.headers['access-control-allow-origin'])
})

t.test('a storefront call needs the store header and a known store', async (t) => {
  const { app } = await setup(t)
  const missing = await storefront(app, { url: '/v1/reviews', payload: review })
  t.equal(missing.json().code, 'store_env_required')
  const unknown = await storefront(app, { url: '/v1/reviews', store: 'env_nope', payload: review })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().code, 'store_env_not_found')
})

t.test('a store with a lapsed subscription answers storefront calls with subscription_expired', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app, { status: 'lapsed' })
  const res = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, payload: review })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'subscription_expired')
})

t.test('a CORS preflight is answered for an allowed origin and not for another', async (t) => {
  const { app, tenant } = await setup(t)
  const preflight = (origin: string, method = 'POST', url = '/v1/reviews') =>
    app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type,x-store-env-id' }
    })
  const ok = await preflight('https://shop.example')
  t.equal(ok.statusCode, 204)
  t.equal(ok.headers['access-control-allow-origin'], 'https://shop.example')
  t.match(String(ok.headers['access-control-allow-headers']), /x-store-env-id/)
  t.match(String(ok.headers['access-control-allow-methods']), /POST/)
  const helpful = await preflight('https://shop.example', 'POST', '/v1/reviews/rev_x/helpful')
  t.equal(helpful.headers['access-control-allow-origin'], 'https://shop.example')
  const refused = await preflight('https://evil.example')
  t.not(refused.statusCode, 204)
  t.notOk(refused.headers['access-control-allow-origin'])
  const credentialRoute = await preflight('https://shop.example', 'GET')
  t.notOk(credentialRoute.headers['access-control-allow-origin'], 'GET /reviews is not a storefront call')
  t.ok(tenant.storeId)
})

t.test('a CORS preflight from an origin no store allows, however long or odd, is refused without an error', async (t) => {
  const { app } = await setup(t)
  for (const origin of [`https://${'a'.repeat(5000)}.example`, 'https://ünïcode.example', 'https://x%_\'"!.example', 'null']) {
    const res = await app.inject({ method: 'OPTIONS', url: '/v1/reviews', headers: { origin, 'access-control-request-method': 'POST' } })
    t.ok(res.statusCode < 500, `${origin.slice(0, 30)} answered ${res.statusCode}`)
    t.notOk(res.headers['access-control-allow-origin'])
  }
})

t.test('GET /reviews still needs a credential although POST /reviews is a storefront call', async (t) => {
  const { app, tenant } = await setup(t)
  const res = await storefront(app, { method: 'GET', url: '/v1/reviews', store: tenant.storeId })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'missing_credentials')
})

t.test('POST /reviews allows 3 per second and 5 per minute per visitor IP', async (t) => {
  const { app, tenant, clock } = await setup(t)
  const send = (ip = '198.51.100.1') => storefront(app, { url: '/v1/reviews', store: tenant.storeId, ip, payload: review })
  for (let i = 0; i < 3; i++) t.equal((await send()).statusCode, 201)
  const fourth = await send()
  t.equal(fourth.statusCode, 429)
  t.equal(fourth.json().code, 'rate_limited')
  t.ok(fourth.headers['retry-after'])
  t.equal((await send('198.51.100.2')).statusCode, 201, 'another IP has its own budget')
  clock.advance(1000)
  t.equal((await send()).statusCode, 201)
  t.equal((await send()).statusCode, 201)
  clock.advance(1000)
  t.equal((await send()).statusCode, 429, 'the sixth in a minute is refused')
  clock.advance(58_001)
  t.equal((await send()).statusCode, 201, 'the minute has slid past the first three')
})

t.test('five helpful votes of one visitor at once count once, and none fails', async (t) => {
  const { app, tenant } = await setup(t)
  await storefront(app, { url: '/v1/reviews', store: tenant.storeId, ip: '198.51.100.9', payload: review })
  const id = (await app.db('reviews').where({ store_env_id: tenant.storeId }).first('id')).id
  await call(app, { method: 'PATCH', url: `/v1/reviews/${id}`, key: tenant.key, store: tenant.storeId, payload: { status: 'published' } })
  const votes = await Promise.all(
    [1, 2, 3, 4, 5].map(() => storefront(app, { url: `/v1/reviews/${id}/helpful`, store: tenant.storeId, ip: '198.51.100.11' }))
  )
  t.same(votes.map((v) => v.statusCode), [200, 200, 200, 200, 200])
  t.equal(Number((await app.db('reviews').where({ id }).first('helpful_count')).helpful_count), 1)
})

t.test('helpful votes allow 5 per second and 20 per minute per visitor IP, in their own budget', async (t) => {
  const { app, tenant, clock } = await setup(t)
  for (let i = 0; i < 3; i++) await storefront(app, { url: '/v1/reviews', store: tenant.storeId, ip: '198.51.100.9', payload: review })
  const id = (await app.db('reviews').where({ store_env_id: tenant.storeId }).first('id')).id
  await call(app, { method: 'PATCH', url: `/v1/reviews/${id}`, key: tenant.key, store: tenant.storeId, payload: { status: 'published' } })
  const vote = () => storefront(app, { url: `/v1/reviews/${id}/helpful`, store: tenant.storeId, ip: '198.51.100.9' })
  let sent = 0
  for (let second = 0; second < 4; second++) {
    for (let i = 0; i < 5; i++, sent++) t.equal((await vote()).statusCode, 200, `vote ${sent + 1}`)
    t.equal((await vote()).statusCode, 429, 'the sixth in a second is refused')
    clock.advance(1000)
  }
  t.equal((await vote()).statusCode, 429, 'the 21st in a minute is refused')
  t.equal((await storefront(app, { url: `/v1/reviews/${id}/helpful`, store: tenant.storeId, ip: '198.51.100.10' })).statusCode, 200)
})

t.test('image uploads allow 5 per second and 20 per minute per visitor IP', async (t) => {
  const { app, tenant, clock } = await setup(t)
  const upload = (ip = '198.51.100.20') =>
    storefront(app, { url: '/v1/uploads/image', store: tenant.storeId, ip, payload: 'x', headers: { 'content-type': 'text/plain' } })
  for (let second = 0; second < 4; second++) {
    for (let i = 0; i < 5; i++) t.not((await upload()).statusCode, 429)
    t.equal((await upload()).statusCode, 429)
    clock.advance(1000)
  }
  t.equal((await upload()).statusCode, 429, 'the 21st in a minute is refused')
  t.not((await upload('198.51.100.21')).statusCode, 429)
})

t.test('one visitor counts one helpful vote per review; unpublished reviews take none', async (t) => {
  const { app, tenant } = await setup(t)
  const created = (await storefront(app, { url: '/v1/reviews', store: tenant.storeId, payload: review })).json()
  const vote = (ip: string) => storefront(app, { url: `/v1/reviews/${created.id}/helpful`, store: tenant.storeId, ip })
  t.equal((await vote('192.0.2.1')).statusCode, 404, 'pending reviews are not shown, so not voted on')
  await call(app, {
    method: 'PATCH',
    url: `/v1/reviews/${created.id}`,
    key: tenant.key,
    store: tenant.storeId,
    payload: { status: 'published' }
  })
  t.same((await vote('192.0.2.1')).json(), { helpfulCount: 1 })
  t.same((await vote('192.0.2.1')).json(), { helpfulCount: 1 })
  t.same((await vote('192.0.2.2')).json(), { helpfulCount: 2 })
  const other = await makeTenant(app)
  const cross = await storefront(app, { url: `/v1/reviews/${created.id}/helpful`, store: other.storeId, ip: '192.0.2.3' })
  t.equal(cross.statusCode, 404, 'another store cannot vote on it')
})

t.test('X-Forwarded-For names the visitor only when the operator trusts the proxy', async (t) => {
  const send = (app: Awaited<ReturnType<typeof build>>, store: string, forwarded: string) =>
    storefront(app, { url: '/v1/reviews', store, ip: '10.0.0.1', payload: review, headers: { 'x-forwarded-for': forwarded } })
  const trusted = await setup(t, { config: { trustProxy: true } })
  for (let i = 0; i < 3; i++) await send(trusted.app, trusted.tenant.storeId, '198.51.100.50')
  t.equal((await send(trusted.app, trusted.tenant.storeId, '198.51.100.50')).statusCode, 429)
  t.equal((await send(trusted.app, trusted.tenant.storeId, '198.51.100.51')).statusCode, 201, 'another forwarded visitor')
  const untrusted = await setup(t)
  for (let i = 0; i < 3; i++) await send(untrusted.app, untrusted.tenant.storeId, `198.51.100.${60 + i}`)
  t.equal(
    (await send(untrusted.app, untrusted.tenant.storeId, '198.51.100.70')).statusCode,
    429,
    'a spoofed header does not buy a new budget'
  )
})
