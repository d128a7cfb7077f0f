import t from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'

interface Operation { parameters?: Array<{ in: string, name: string, required?: boolean }> }

/**
 * Every GET of the OpenAPI document that takes `page`, with its path parameters filled in and its other required
 * query parameters given (the storefront's `productId`), so that only `page` and `limit` are under test.
 */
async function pagedLists (app: Awaited<ReturnType<typeof build>>): Promise<string[]> {
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, { get?: Operation }> }
  return Object.entries(doc.paths)
    .filter(([, item]) => item.get?.parameters?.some((p) => p.in === 'query' && p.name === 'page'))
    .map(([path, item]) => {
      const required = (item.get!.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=x&`).join('')
      return `${path.replace(/\{[^}]+\}/g, 'x')}?${required}`
    })
}

// Many calls with one key: the test's clock moves past the rate limit windows between them.
async function setup (t: Parameters<typeof build>[0]) {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  // The Origin of a shop the store allows, for the storefront's lists; credential routes ignore it.
  const get = (url: string) => {
    clock.advance(61_000)
    return call(app, { method: 'GET', url, key: tenant.key, store: tenant.storeId, headers: { origin: 'https://shop.example' } })
  }
  return { app, get }
}

t.test('every paginated list refuses an absurd page with 400 invalid_request', async (t) => {
  const { app, get } = await setup(t)
  const lists = await pagedLists(app)
  t.ok(lists.length >= 10, `found ${lists.length} paginated lists`)
  for (const url of lists) {
    for (const page of ['Infinity', '4611686018427387904', '1e300', '10000001']) {
      const res = await get(`${url}page=${page}`)
      t.equal(res.statusCode, 400, `${url}page=${page}: ${res.body.slice(0, 200)}`)
      t.equal(res.json().code, 'invalid_request', `${url}page=${page}`)
    }
  }
})

t.test('the largest allowed page answers an empty page, not an error', async (t) => {
  const { app, get } = await setup(t)
  for (const url of await pagedLists(app)) {
    if (url.includes('/x')) continue // lists under one resource answer 404 for the placeholder id
    const res = await get(`${url}page=10000000&limit=100`)
    t.equal(res.statusCode, 200, url)
    t.same(res.json().data, [], url)
  }
})

t.test('an absurd limit is clamped to 100, not an error', async (t) => {
  const { get } = await setup(t)
  for (const limit of ['4611686018427387904', '1e300']) {
    const res = await get(`/v1/products?limit=${limit}`)
    t.equal(res.statusCode, 200, limit)
    t.equal(res.json().meta.limit, 100, limit)
  }
})

t.test('Infinity in any number of a querystring is 400 invalid_request, not a value past the bounds', async (t) => {
  const { get } = await setup(t)
  for (
    const url of ['/v1/products?limit=Infinity', '/v1/reviews?rating=Infinity', '/v1/reviews?rating=-Infinity', '/v1/orders?page=-Infinity']
  ) {
    const res = await get(url)
    t.equal(res.statusCode, 400, url)
    t.equal(res.json().code, 'invalid_request', url)
  }
})
