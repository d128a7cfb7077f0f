import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'

const ANN = 'ann.smith@example.test'

/** r1..r3 imported with their original dates, r4 from the storefront at a date between r1 and r2. */
async function seed (t: Parameters<typeof build>[0]) {
  const clock = manualClock(Date.parse('2024-06-01T00:00:00Z'))
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    ...as,
    payload: { products: [{ platformProductId: 'p1' }, { platformProductId: 'p2' }] }
  })
  await call(app, { method: 'PUT', url: '/v1/orders', ...as, payload: { orders: [{ platformOrderId: 'o1', customerEmail: ANN }] } })
  const imported = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    ...as,
    payload: {
      type: 'reviews',
      items: [
        {
          productId: 'p1',
          orderId: 'o1',
          rating: 5,
          body: 'Great',
          authorName: 'Ann',
          authorEmail: ANN.toUpperCase(),
          writtenAt: '2024-01-01T00:00:00Z'
        },
        {
          productId: 'p2',
          orderId: 'o1',
          rating: 3,
          body: 'Fine',
          authorName: 'Eve',
          authorEmail: 'eve@example.test',
          writtenAt: '2025-06-01T00:00:00Z'
        },
        {
          productId: 'p1',
          rating: 1,
          body: 'Bad',
          authorName: 'Sam',
          authorEmail: 'sam@example.test',
          writtenAt: '2023-01-01T00:00:00Z',
          status: 'pending'
        }
      ]
    }
  })
  const r4 = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    payload: { productId: 'p2', orderId: 'o1', rating: 4, body: 'Nice', authorName: 'Ann', authorEmail: ANN }
  })
  t.equal(r4.statusCode, 201)
  t.same(r4.json().status, 'pending')
  const byBody = new Map<string, string>()
  for (const review of (await call(app, { method: 'GET', url: '/v1/reviews', ...as })).json().data) byBody.set(review.body, review.id)
  t.equal(imported.json().imported, 3)
  return { app, tenant, as, clock, id: (body: string) => byBody.get(body)! }
}

async function bodies (
  t: Parameters<typeof build>[0],
  { app, tenant, clock }: { app: FastifyInstance, tenant: Tenant, clock: { advance: (ms: number) => void } },
  query: string
) {
  clock.advance(500) // the manual clock stands still: keep under the per-credential 10/s
  const res = await call(app, { method: 'GET', url: `/v1/reviews${query}`, key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200, `${query} ${res.statusCode === 200 ? '' : res.body}`)
  return res.json().data.map((r: { body: string }) => r.body)
}

t.test('reviews list newest writtenAt first, imported reviews by their original date', async (t) => {
  const ctx = await seed(t)
  t.same(await bodies(t, ctx, ''), ['Fine', 'Nice', 'Great', 'Bad'])
})

t.test('every filter narrows the list: orderId, productId, verified true and false, status, rating', async (t) => {
  const ctx = await seed(t)
  const { app, tenant } = ctx
  t.same(await bodies(t, ctx, '?orderId=o1'), ['Fine', 'Nice', 'Great'])
  t.same(await bodies(t, ctx, '?orderId=none'), [])
  t.same(await bodies(t, ctx, '?productId=p1'), ['Great', 'Bad'])
  t.same(await bodies(t, ctx, '?verified=true'), ['Nice', 'Great'])
  t.same(await bodies(t, ctx, '?verified=false'), ['Fine', 'Bad'])
  t.same(await bodies(t, ctx, '?status=pending'), ['Nice', 'Bad'])
  t.same(await bodies(t, ctx, '?status=published'), ['Fine', 'Great'])
  t.same(await bodies(t, ctx, '?rating=3'), ['Fine'])
  t.same(await bodies(t, ctx, '?productId=p2&verified=false&orderId=o1'), ['Fine'])
  const bad = await call(app, { method: 'GET', url: '/v1/reviews?rating=6', key: tenant.key, store: tenant.storeId })
  t.equal(bad.json().code, 'invalid_request')
})

t.test('the list is page-numbered with the standard envelope', async (t) => {
  const { app, as } = await seed(t)
  const page = (await call(app, { method: 'GET', url: '/v1/reviews?limit=3&page=2', ...as })).json()
  t.same(page.meta, { total: 4, page: 2, limit: 3, totalPages: 2 })
  t.same(page.data.map((r: { body: string }) => r.body), ['Bad'])
})

t.test('no response or event carrying a review shows the reviewer email, only its last four characters', async (t) => {
  const { app, tenant, as, id } = await seed(t)
  const responses = [
    await call(app, { method: 'GET', url: '/v1/reviews', ...as }),
    await call(app, { method: 'GET', url: `/v1/reviews/${id('Nice')}`, ...as }),
    await call(app, { method: 'PATCH', url: `/v1/reviews/${id('Nice')}`, ...as, payload: { status: 'published', reply: 'Thanks!' } }),
    await storefront(app, { url: `/v1/reviews/${id('Nice')}/helpful`, store: tenant.storeId })
  ]
  const one = responses[1].json()
  t.equal(one.authorEmailLast4, 'test')
  t.notOk('authorEmail' in one)
  await call(app, { method: 'DELETE', url: `/v1/reviews/${id('Bad')}`, ...as })
  const events = await app.db('events').where({ store_env_id: tenant.storeId }).where('type', 'like', 'review.%').select('data')
  t.ok(events.length >= 6)
  for (const text of [...responses.map((r) => r.body), ...events.map((e: { data: string }) => e.data)]) {
    t.notOk(/@example\.test/i.test(text), 'no address in a response or event')
  }
  const stored = await app.db('reviews').where({ id: id('Nice') }).first()
  t.equal(stored.author_email, ANN, 'stored in full')
})

t.test('publishing and replying moderate a review and append review.published then review.updated', async (t) => {
  const { app, tenant, as, id } = await seed(t)
  const published = await call(app, { method: 'PATCH', url: `/v1/reviews/${id('Nice')}`, ...as, payload: { status: 'published' } })
  t.equal(published.json().status, 'published')
  const replied = await call(app, { method: 'PATCH', url: `/v1/reviews/${id('Nice')}`, ...as, payload: { reply: 'Thank you, Ann' } })
  t.match(replied.json().reply, { body: 'Thank you, Ann', repliedAt: String })
  const types = await app.db('events').where({ store_env_id: tenant.storeId }).whereIn('type', ['review.published', 'review.updated'])
    .orderBy('id').pluck('type')
  t.same(types, ['review.published', 'review.updated'])
  const cleared = await call(app, { method: 'PATCH', url: `/v1/reviews/${id('Nice')}`, ...as, payload: { reply: null } })
  t.equal(cleared.json().reply, null)
  const empty = await call(app, { method: 'PATCH', url: `/v1/reviews/${id('Nice')}`, ...as, payload: {} })
  t.equal(empty.statusCode, 400)
})

t.test('publishing a review three times at once publishes it once: one review.published', async (t) => {
  const { app, tenant, as, id } = await seed(t)
  const answers = await Promise.all(
    [1, 2, 3].map(() => call(app, { method: 'PATCH', url: `/v1/reviews/${id('Nice')}`, ...as, payload: { status: 'published' } }))
  )
  t.same(answers.map((r) => [r.statusCode, r.json().status]), [[200, 'published'], [200, 'published'], [200, 'published']])
  const types = await app.db('events').where({ store_env_id: tenant.storeId }).whereIn('type', ['review.published', 'review.updated'])
    .pluck('type')
  t.same(types, ['review.published'])
})

t.test('deleting a review answers 204, appends review.deleted and the review is gone', async (t) => {
  const { app, tenant, as, id } = await seed(t)
  const res = await call(app, { method: 'DELETE', url: `/v1/reviews/${id('Great')}`, ...as })
  t.equal(res.statusCode, 204)
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${id('Great')}`, ...as })).statusCode, 404)
  const event = await app.db('events').where({ store_env_id: tenant.storeId, type: 'review.deleted' }).first()
  t.equal(JSON.parse(event.data).id, id('Great'))
})

t.test('a review becomes verified when its order later gets the author\'s email', async (t) => {
  const { app, as, id } = await seed(t)
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${id('Fine')}`, ...as })).json().verified, false)
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    ...as,
    payload: { orders: [{ platformOrderId: 'o1', customerEmail: 'eve@example.test' }] }
  })
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${id('Fine')}`, ...as })).json().verified, true)
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${id('Great')}`, ...as })).json().verified, false)
})

t.test('one store cannot read, moderate or delete another store\'s reviews', async (t) => {
  const { app, id } = await seed(t)
  const other = await makeTenant(app)
  const as = { key: other.key, store: other.storeId }
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${id('Great')}`, ...as })).statusCode, 404)
  t.equal((await call(app, { method: 'PATCH', url: `/v1/reviews/${id('Great')}`, ...as, payload: { status: 'rejected' } })).statusCode, 404)
  t.equal((await call(app, { method: 'DELETE', url: `/v1/reviews/${id('Great')}`, ...as })).statusCode, 404)
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews', ...as })).json().meta.total, 0)
})

t.test('meta.total stays exact for every documented filter through moderation, re-verification and deletion', async (t) => {
  const ctx = await seed(t)
  const { app, as, id, clock } = ctx
  const queries = [
    '',
    '?verified=true',
    '?verified=false',
    '?status=published',
    '?status=pending',
    '?rating=4',
    '?status=published&rating=5',
    '?status=pending&rating=1',
    '?productId=p1',
    '?orderId=o1'
  ]
  async function check (stage: string) {
    for (const query of queries) {
      clock.advance(500)
      const page = (await call(app, { method: 'GET', url: `/v1/reviews${query}${query ? '&' : '?'}limit=100`, ...as })).json()
      t.equal(page.meta.total, page.data.length, `${stage}: ${query || 'no filter'}`)
    }
  }
  await check('seeded')
  clock.advance(500)
  await call(app, { method: 'PATCH', url: `/v1/reviews/${id('Nice')}`, ...as, payload: { status: 'published' } })
  clock.advance(500)
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    ...as,
    payload: { orders: [{ platformOrderId: 'o1', customerEmail: 'eve@example.test' }] }
  })
  clock.advance(500)
  t.equal((await call(app, { method: 'DELETE', url: `/v1/reviews/${id('Bad')}`, ...as })).statusCode, 204)
  await check('after publishing, re-verifying and deleting')
  clock.advance(500)
  t.same((await call(app, { method: 'GET', url: '/v1/reviews?status=published', ...as })).json().meta.total, 3)
})
