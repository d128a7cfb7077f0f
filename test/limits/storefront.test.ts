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
  await call(app, { method: 'PUT', url: '/v1/products', key: tenant.key, store: tenant.storeId, payload: { products: [{ platformProductId: 'p1' }] } })
  return tenant
}

const postReview = (app: FastifyInstance, store: string, origin = ORIGIN) => storefront(app, { url: '/v1/reviews', store, origin, ip: VISITOR, payload: review })

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
