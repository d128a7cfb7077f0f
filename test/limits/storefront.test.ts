import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'

const ORIGIN = 'https://shop.example'
const VISITOR = '198.51.100.80'
const review = { productId: 'p1', rating: 5, body: 'Lovely', authorName: 'Ann', authorEmail: 'ann@example.test' }

async function shop (app: FastifyInstance): Promise<Tenant> {
  const tenant = await makeTenant(app, { origins: [ORIGIN] })
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  return tenant
}

const postReview = (app: FastifyInstance, store: string, origin = ORIGIN) =>
  storefront(app, { url: '/v1/reviews', store, origin, ip: VISITOR, payload: review })

t.test('a visitor IP that used up its review budget on one store can still post reviews to another store', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const [a, b] = [await shop(app), await shop(app)]
  for (let i = 0; i < 3; i++) t.equal((await postReview(app, a.storeId)).statusCode, 201)
  t.equal((await postReview(app, a.storeId)).statusCode, 429, 'store A is used up for this visitor')
  t.equal((await postReview(app, b.storeId)).statusCode, 201, 'store B keeps its own budget for the same visitor')
})

t.test('storefront calls refused by the origin check do not spend the visitor\'s budget', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await shop(app)
  for (let i = 0; i < 5; i++) t.equal((await postReview(app, tenant.storeId, 'https://evil.example')).json().code, 'origin_not_allowed')
  for (let i = 0; i < 3; i++) t.equal((await postReview(app, tenant.storeId)).statusCode, 201, `allowed call ${i + 1}`)
})

t.test('storefront calls refused before a store\'s budget applies carry the RateLimit headers of the visitor\'s public budget', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await shop(app)
  const refusals: Array<[string | undefined, string, string]> = [
    [undefined, ORIGIN, 'store_env_required'],
    ['env_doesnotexist00000', ORIGIN, 'store_env_not_found'],
    [tenant.storeId, 'https://evil.example', 'origin_not_allowed']
  ]
  let remaining = 100
  for (const [store, origin, code] of refusals) {
    const res = await storefront(app, { method: 'GET', url: '/v1/storefront/summary?productId=p1', store, origin, ip: '203.0.113.9' })
    t.equal(res.json().code, code)
    t.same([res.headers['ratelimit-limit'], res.headers['ratelimit-remaining'], res.headers['ratelimit-reset']], [
      '100',
      String(--remaining),
      '10'
    ], code)
  }
})

t.test('a visitor IP\'s refused storefront calls stop at its public budget, 100 in ten seconds, and resume after', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const guess = (i: number) =>
    storefront(app, {
      method: 'GET',
      url: '/v1/storefront/summary?productId=p1',
      store: `env_guess${i}`,
      origin: ORIGIN,
      ip: '203.0.113.10'
    })
  for (let i = 0; i < 100; i++) {
    const res = await guess(i)
    if (res.statusCode !== 404) t.fail(`guess ${i + 1}: ${res.statusCode}`)
  }
  const over = await guess(100)
  t.equal(over.statusCode, 429)
  t.equal(over.json().code, 'rate_limited')
  clock.advance(9_999)
  t.equal((await guess(101)).statusCode, 429, 'still inside the window')
  clock.advance(1)
  t.equal((await guess(102)).statusCode, 404, 'the window has passed')
})
