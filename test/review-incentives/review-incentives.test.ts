import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeKey, makeTenant, type Tenant } from '../factories.js'
import type { StoreEnv } from '../../src/types.js'
import { account, makeCustomers } from '../loyalty/support.js'

const create = (app: FastifyInstance, tenant: Tenant, payload: Record<string, unknown>) =>
  call(app, { method: 'POST', url: '/v1/review-incentives', key: tenant.key, store: tenant.storeId, payload })

/** A pending review written through the service (the storefront's per-IP limits are not what is tested here). */
async function writeReview (app: FastifyInstance, tenant: Tenant, input: { rating?: number, email?: string, orderId?: string } = {}) {
  const store = (await app.services.stores.find(tenant.storeId)) as StoreEnv
  await app.services.products.upsert(store, [{ platformProductId: 'p1' }])
  const { id } = await app.services.reviews.submit(store, {
    productId: 'p1',
    rating: input.rating ?? 5,
    body: 'Lovely',
    authorName: 'Ann',
    authorEmail: input.email ?? 'ann@example.com',
    orderId: input.orderId
  })
  return id
}

const publish = (app: FastifyInstance, as: { key: string, storeId: string }, id: string, status = 'published') =>
  call(app, { method: 'PATCH', url: `/v1/reviews/${id}`, key: as.key, store: as.storeId, payload: { status } })

const issued = async (app: FastifyInstance, storeId: string) =>
  (await app.db('events').where({ store_env_id: storeId, type: 'review_incentive.issued' }).orderBy('id').pluck('data')).map((d: string) =>
    JSON.parse(d)
  )

t.test('an incentive is created, listed, changed and deleted, with its rules checked', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const created = await create(app, tenant, { type: 'points', points: 50, minRating: 4, verifiedOnly: true })
  t.equal(created.statusCode, 201)
  const body = created.json()
  t.match(body, {
    id: /^rin_/,
    type: 'points',
    points: 50,
    minRating: 4,
    requiresMedia: false,
    verifiedOnly: true,
    pool: { available: 0, issued: 0 },
    poolEmpty: { count: 0, lastAt: null }
  })
  const as = { key: tenant.key, store: tenant.storeId }
  t.match((await call(app, { method: 'PATCH', url: `/v1/review-incentives/${body.id}`, ...as, payload: { minRating: null } })).json(), {
    minRating: null,
    points: 50
  })
  t.equal(
    (await call(app, { method: 'PATCH', url: `/v1/review-incentives/${body.id}`, ...as, payload: { points: null } })).statusCode,
    400,
    'points stay required'
  )
  t.equal((await call(app, { method: 'GET', url: '/v1/review-incentives', ...as })).json().meta.total, 1)
  t.equal((await call(app, { method: 'DELETE', url: `/v1/review-incentives/${body.id}`, ...as })).statusCode, 204)
  t.equal((await call(app, { method: 'GET', url: `/v1/review-incentives/${body.id}`, ...as })).statusCode, 404)
  const checker = { ...tenant, key: (await makeKey(app, tenant, 'admin')).secret }
  for (
    const bad of [
      { type: 'points', verifiedOnly: false },
      { type: 'coupon', points: 5, verifiedOnly: false },
      { type: 'coupon', minRating: 6, verifiedOnly: false },
      { type: 'points', points: 0, verifiedOnly: false },
      { type: 'points', points: 1e10, verifiedOnly: false },
      { type: 'gift', verifiedOnly: false },
      { type: 'coupon' }
    ]
  ) {
    const res = await create(app, checker, bad)
    t.equal(res.statusCode, 400, JSON.stringify(bad))
    t.equal(res.json().code, 'invalid_request')
  }
  t.same(
    await app.db('events').where({ store_env_id: tenant.storeId }).where('type', 'like', 'review_incentive.%').orderBy('id').pluck('type'),
    ['review_incentive.created', 'review_incentive.updated', 'review_incentive.deleted']
  )
})

t.test('two changes of different rules sent at once: the last updated event shows the incentive as stored', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  const id = (await create(app, tenant, { type: 'points', points: 50, verifiedOnly: false })).json().id
  const patch = (payload: object) => call(app, { method: 'PATCH', url: `/v1/review-incentives/${id}`, ...as, payload })
  t.same((await Promise.all([patch({ points: 80 }), patch({ minRating: 4 })])).map((r) => r.statusCode), [200, 200])
  const stored = (await call(app, { method: 'GET', url: `/v1/review-incentives/${id}`, ...as })).json()
  t.match(stored, { points: 80, minRating: 4 })
  const updates = (await call(app, { method: 'GET', url: '/v1/events?limit=10', ...as })).json().events.filter((e: { type: string }) =>
    e.type === 'review_incentive.updated'
  )
  t.same(updates.at(-1).data, stored)
})

t.test('a qualifying published review gets one code from the pool, once, even when published again', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { id } = (await create(app, tenant, { type: 'coupon', minRating: 4, verifiedOnly: false })).json()
  const added = await call(app, {
    method: 'POST',
    url: `/v1/review-incentives/${id}/codes`,
    key: tenant.key,
    store: tenant.storeId,
    payload: { codes: ['A-1', 'A-2', 'A-1', '😀'.repeat(100)] }
  })
  t.same(added.json(), { added: 3, duplicates: 1, pool: { available: 3, issued: 0 } })
  const good = await writeReview(app, tenant, { rating: 4 })
  const low = await writeReview(app, tenant, { rating: 3 })
  const as = { key: tenant.key, storeId: tenant.storeId }
  t.equal((await publish(app, as, good)).statusCode, 200)
  await publish(app, as, low)
  await publish(app, as, good, 'rejected')
  await publish(app, as, good)
  t.match(await issued(app, tenant.storeId), [{ reviewId: good, incentiveId: id, type: 'coupon', status: 'issued', code: 'A-1' }])
  t.equal((await issued(app, tenant.storeId)).length, 1, 'one reward for the review, none for the 3-star one')
  const checker = { key: (await makeKey(app, tenant, 'admin')).secret, store: tenant.storeId }
  t.match((await call(app, { method: 'GET', url: `/v1/review-incentives/${id}`, ...checker })).json(), {
    pool: { available: 2, issued: 1 }
  })
})

t.test('the same codes added three times at once are added once, and the other two count them duplicates', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { id } = (await create(app, tenant, { type: 'coupon', verifiedOnly: false })).json()
  const codes = Array.from({ length: 20 }, (_, i) => `SAME-${i}`)
  const answers = await Promise.all(
    [1, 2, 3].map(() =>
      call(app, { method: 'POST', url: `/v1/review-incentives/${id}/codes`, key: tenant.key, store: tenant.storeId, payload: { codes } })
    )
  )
  t.same(answers.map((a) => a.statusCode), [200, 200, 200])
  t.same(answers.map((a) => a.json().added).sort(), [0, 0, 20])
  t.match(answers.find((a) => a.json().added === 20)!.json(), { pool: { available: 20 } })
})

t.test('an empty pool is reported on the incentive and in the event, and publishing still succeeds', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { id } = (await create(app, tenant, { type: 'coupon', verifiedOnly: false })).json()
  const review = await writeReview(app, tenant)
  const res = await publish(app, { key: tenant.key, storeId: tenant.storeId }, review)
  t.equal(res.statusCode, 200)
  t.equal(res.json().status, 'published')
  t.match(await issued(app, tenant.storeId), [{ reviewId: review, status: 'pool_empty', code: null }])
  t.match((await call(app, { method: 'GET', url: `/v1/review-incentives/${id}`, key: tenant.key, store: tenant.storeId })).json(), {
    poolEmpty: { count: 1, lastAt: /^2\d{3}-/ }
  })
})

t.test('an incentive\'s updatedAt moves when codes join its pool, when one is issued and when the pool is found empty', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  const { id } = (await create(app, tenant, { type: 'coupon', verifiedOnly: false })).json()
  const updatedAt = async () => (await call(app, { method: 'GET', url: `/v1/review-incentives/${id}`, ...as })).json().updatedAt
  const step = () => { clock.advance(60_000); return new Date(clock()).toISOString() }

  let at = step()
  await call(app, { method: 'POST', url: `/v1/review-incentives/${id}/codes`, ...as, payload: { codes: ['ONLY'] } })
  t.equal(await updatedAt(), at, 'a code added')
  const before = at
  step()
  await call(app, { method: 'POST', url: `/v1/review-incentives/${id}/codes`, ...as, payload: { codes: ['ONLY'] } })
  t.equal(await updatedAt(), before, 'a duplicate changes nothing')
  const reviews = [await writeReview(app, tenant), await writeReview(app, tenant)]
  at = step()
  await publish(app, { key: tenant.key, storeId: tenant.storeId }, reviews[0])
  t.equal(await updatedAt(), at, 'the code issued')
  at = step()
  await publish(app, { key: tenant.key, storeId: tenant.storeId }, reviews[1])
  t.equal(await updatedAt(), at, 'the pool found empty')
  const since = (await call(app, { method: 'GET', url: `/v1/review-incentives?updatedSince=${at}`, ...as })).json()
  t.same(since.data.map((i: { id: string }) => i.id), [id], 'updatedSince finds it')
})

t.test('two reviews published at once with one code left: one gets it, the other finds the pool empty', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { id } = (await create(app, tenant, { type: 'coupon', verifiedOnly: false })).json()
  await call(app, {
    method: 'POST',
    url: `/v1/review-incentives/${id}/codes`,
    key: tenant.key,
    store: tenant.storeId,
    payload: { codes: ['ONLY'] }
  })
  const reviews = [await writeReview(app, tenant), await writeReview(app, tenant)]
  const as = { key: tenant.key, storeId: tenant.storeId }
  const results = await Promise.all([...reviews.map((r) => publish(app, as, r)), publish(app, as, reviews[0])])
  t.same(results.map((r) => r.statusCode), [200, 200, 200])
  const events = await issued(app, tenant.storeId)
  t.same(events.map((e: { status: string }) => e.status).sort(), ['issued', 'pool_empty'])
  t.same(new Set(events.map((e: { reviewId: string }) => e.reviewId)), new Set(reviews))
})

t.test('a points incentive credits the author\'s loyalty account once, and only verified reviews when asked', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const ids = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'ann', email: 'ann@example.com' }])
  await create(app, tenant, { type: 'points', points: 75, verifiedOnly: true })
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: [{ platformOrderId: 'o1', customerEmail: 'ANN@example.com' }] }
  })
  const unverified = await writeReview(app, tenant)
  const verified = await writeReview(app, tenant, { orderId: 'o1' })
  const stranger = await writeReview(app, tenant, { email: 'who@example.com', orderId: 'o1' })
  const as = { key: (await makeKey(app, tenant, 'admin')).secret, storeId: tenant.storeId }
  for (const review of [unverified, verified, stranger, verified]) await publish(app, as, review)
  t.match(await issued(app, tenant.storeId), [{ reviewId: verified, status: 'issued', points: 75, customerId: ids.ann }])
  const got = await account(app, as, ids.ann)
  t.equal(got.balance, 75)
  t.match(got.ledger.data, [{ kind: 'review', idempotencyKey: verified, points: 75 }])
})

t.test('a points reward for an address with no customer is reported as no_customer', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await create(app, tenant, { type: 'points', points: 10, verifiedOnly: false })
  const review = await writeReview(app, tenant, { email: 'nobody@example.com' })
  await publish(app, { key: tenant.key, storeId: tenant.storeId }, review)
  t.match(await issued(app, tenant.storeId), [{ reviewId: review, status: 'no_customer', code: null, customerId: null }])
})

t.test('one store cannot read, change or fill another store\'s incentives', async (t) => {
  const app = await sharedApp()
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  const { id } = (await create(app, a, { type: 'coupon', verifiedOnly: false })).json()
  const asB = { key: b.key, store: b.storeId }
  t.equal((await call(app, { method: 'GET', url: `/v1/review-incentives/${id}`, ...asB })).statusCode, 404)
  t.equal((await call(app, { method: 'PATCH', url: `/v1/review-incentives/${id}`, ...asB, payload: { minRating: 1 } })).statusCode, 404)
  t.equal(
    (await call(app, { method: 'POST', url: `/v1/review-incentives/${id}/codes`, ...asB, payload: { codes: ['X'] } })).statusCode,
    404
  )
  t.equal((await call(app, { method: 'GET', url: '/v1/review-incentives', ...asB })).json().meta.total, 0)
  const points = (await create(app, a, { type: 'points', points: 1, verifiedOnly: false })).json()
  const noPool = await call(app, {
    method: 'POST',
    url: `/v1/review-incentives/${points.id}/codes`,
    key: a.key,
    store: a.storeId,
    payload: { codes: ['X'] }
  })
  t.equal(noPool.statusCode, 409)
  t.equal(noPool.json().code, 'conflict')
})
