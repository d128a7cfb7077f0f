import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { rebuildStore } from '../../src/modules/analytics/rollups.js'
import { api, calendar, DAY, expected, isoDay, NOW, prng, reviewRows, type Interval } from './recount.js'

const STATUSES = ['pending', 'published', 'rejected'] as const
const PRODUCTS = ['p1', 'p2', 'p3']

/** An app on a manual clock, a tenant with three products, and its API. */
async function store (t: Parameters<typeof build>[0]) {
  const clock = manualClock(NOW)
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const as = api(app, tenant, clock, 300)
  await as('PUT', '/v1/products', { products: PRODUCTS.map((id) => ({ platformProductId: id })) })
  return { app, tenant, as, clock }
}

/** `count` reviews spread at random over [start, end), plus the last and first millisecond of a month and of a week. */
function randomReviews (random: () => number, count: number, start: number, end: number, extra: Record<string, unknown> = {}) {
  const items = Array.from({ length: count }, (_, i) => ({
    productId: PRODUCTS[Math.floor(random() * 3)],
    rating: 1 + Math.floor(random() * 5),
    body: `Review ${i}`,
    authorName: 'Ann',
    writtenAt: new Date(start + Math.floor(random() * (end - start))).toISOString(),
    status: STATUSES[Math.floor(random() * 3)],
    ...extra
  }))
  // 2024-03-03 is a Sunday and 2024-03-04 a Monday; 2024-02-29 the last day of a leap February.
  for (const at of ['2024-02-29T23:59:59.999Z', '2024-03-01T00:00:00Z', '2024-03-03T23:59:59.999Z', '2024-03-04T00:00:00Z']) {
    items.push({ ...items[0], writtenAt: at })
  }
  return items
}

/** Imports in batches, then moves about 15% of the reviews to another status and deletes about 8%. */
async function importAndModerate (
  t: Parameters<typeof build>[0],
  app: FastifyInstance,
  storeId: string,
  as: ReturnType<typeof api>,
  random: () => number,
  items: object[]
) {
  for (let i = 0; i < items.length; i += 150) {
    t.equal(
      (await as('POST', '/v1/imports', { type: 'reviews', items: items.slice(i, i + 150) })).json().imported,
      items.slice(i, i + 150).length
    )
  }
  const ids = (await app.services.db('reviews').where({ store_env_id: storeId }).orderBy('id').pluck('id')) as string[]
  for (const id of ids.filter(() => random() < 0.15)) {
    t.equal((await as('PATCH', `/v1/reviews/${id}`, { status: STATUSES[Math.floor(random() * 3)] })).statusCode, 200)
  }
  for (const id of ids.filter(() => random() < 0.08)) t.equal((await as('DELETE', `/v1/reviews/${id}`)).statusCode, 204)
}

const START = Date.parse('2023-10-20T00:00:00Z')
const END = Date.parse('2026-03-11T00:00:00Z')

t.test('week and month series over more than two years equal a brute-force recount, whatever day the range starts and ends on', async (t) => {
  const { app, tenant, as } = await store(t)
  const random = prng(1818)
  await importAndModerate(t, app, tenant.storeId, as, random, randomReviews(random, 320, START, END))
  const rows = await reviewRows(app, tenant.storeId)
  const queries: Array<{ from: string, to: string, interval: Interval, productId?: string, status?: string }> = [
    { from: '2023-11-01', to: '2026-02-28', interval: 'month' },
    { from: '2023-10-20', to: '2026-03-10', interval: 'month' },
    { from: '2024-02-10', to: '2024-02-20', interval: 'month' },
    { from: '2024-01-31', to: '2024-03-01', interval: 'month', status: 'published' },
    { from: '2023-10-23', to: '2026-03-08', interval: 'week' },
    { from: '2024-12-31', to: '2025-01-06', interval: 'week' },
    { from: '2023-10-20', to: '2026-03-10', interval: 'week', productId: 'p2', status: 'pending' },
    { from: '2023-10-20', to: '2026-03-10', interval: 'day', productId: 'p3' }
  ]
  // And ranges from and to any day of the data's span, in either grain.
  for (let i = 0; i < 16; i++) {
    const [a, b] = [random(), random()].map((x) => isoDay(START + Math.floor(x * (END - START))))
    queries.push({
      from: a < b ? a : b,
      to: a < b ? b : a,
      interval: i % 2 ? 'week' : 'month',
      ...(i % 3 === 0 ? { productId: PRODUCTS[i % 3] } : {}),
      ...(i % 4 === 1 ? { status: 'rejected' } : {})
    })
  }
  for (const q of queries) {
    const res = await as('GET', `/v1/analytics/reviews?${new URLSearchParams(q as Record<string, string>)}`)
    t.equal(res.statusCode, 200, res.body)
    t.same(res.json(), { ...q, productId: q.productId ?? null, status: q.status ?? null, ...expected(rows, q) }, JSON.stringify(q))
  }
})

t.test('storefront engagement by week and month over two years equals a recount of the votes cast', async (t) => {
  const { app, tenant, as, clock } = await store(t)
  const random = prng(2718)
  await as('POST', '/v1/imports', {
    type: 'reviews',
    items: [{ productId: 'p1', rating: 5, body: 'Great', authorName: 'A', writtenAt: '2026-01-01T00:00:00Z' }]
  })
  const id = (await as('GET', '/v1/reviews')).json().data[0].id
  for (let i = 0; i < 60; i++) {
    clock.advance(Math.floor(random() * 25 * DAY))
    const ip = `198.51.100.${1 + Math.floor(random() * 250)}`
    await storefront(app, { url: `/v1/reviews/${id}/helpful`, store: tenant.storeId, ip })
  }
  const votes = (await app.services.db('review_votes').where({ store_env_id: tenant.storeId }).pluck('created_at')).map(Number)
  t.ok(votes.length > 40, 'most visitors voted once')
  for (
    const q of [{ from: '2026-03-20', to: isoDay(clock()), interval: 'month' as const }, {
      from: '2026-04-01',
      to: '2027-12-31',
      interval: 'month' as const
    }, { from: '2026-03-25', to: isoDay(clock()), interval: 'week' as const }]
  ) {
    const { label, from, to, periods } = calendar(q, () => 0)
    for (const at of votes) if (at >= from && at <= to) periods.set(label(at), periods.get(label(at))! + 1)
    const res = await as('GET', `/v1/analytics/storefront?${new URLSearchParams(q)}`)
    t.equal(res.statusCode, 200, res.body)
    t.same(
      res.json().series.map((p: { period: string, helpfulVotes: number }) => [p.period, p.helpfulVotes]),
      [...periods],
      JSON.stringify(q)
    )
    t.equal(res.json().totals.helpfulVotes, [...periods.values()].reduce((a, b) => a + b, 0))
  }
})

const keyOf = (cell: Record<string, unknown>) => JSON.stringify(Object.entries(cell).sort(([a], [b]) => a.localeCompare(b)))

/** The week and month rows recomputed from the day rows, and as stored; cells at zero left out of both. */
async function periodRows (app: FastifyInstance, storeId: string, days: string, periods: string) {
  const db = app.services.db
  const first = (grain: Interval, day: number) => {
    const { periods } = calendar({ from: isoDay(day * DAY), to: isoDay(day * DAY), interval: grain }, () => 0)
    return Date.parse(`${[...periods.keys()][0]}T00:00:00Z`) / DAY
  }
  const fromDays = new Map<string, number>()
  for (const { day, n, store_env_id: _, ...rest } of await db(days).where({ store_env_id: storeId })) {
    for (const grain of ['week', 'month'] as const) {
      const key = keyOf({ ...rest, grain, first_day: first(grain, Number(day)) })
      fromDays.set(key, (fromDays.get(key) ?? 0) + Number(n))
    }
  }
  const stored = (await db(periods).where({ store_env_id: storeId }).where('n', '!=', 0)).map((
    { n, store_env_id: _, ...rest }: Record<string, unknown>
  ) => [keyOf({ ...rest, first_day: Number(rest.first_day) }), Number(n)])
  return { fromDays: [...fromDays].filter(([, n]) => n !== 0).sort(), stored: stored.sort() }
}

t.test('week and month rows stay the sums of the day rows as reviews arrive, change, are erased and deleted, and after a rebuild', async (t) => {
  const { app, tenant, as, clock } = await store(t)
  const random = prng(314)
  const email = 'cy@example.test'
  await as('PUT', '/v1/customers', { customers: [{ platformCustomerId: 'c1', email, firstName: 'Cy' }] })
  await importAndModerate(t, app, tenant.storeId, as, random, [
    ...randomReviews(random, 150, Date.parse('2024-01-20T00:00:00Z'), Date.parse('2024-05-10T00:00:00Z')),
    ...randomReviews(random, 20, Date.parse('2024-02-25T00:00:00Z'), Date.parse('2024-03-05T00:00:00Z'), { authorEmail: email })
  ])
  await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    payload: { productId: 'p2', rating: 3, body: 'Fine', authorName: 'Bo', authorEmail: 'bo@example.test' }
  })
  const published = await app.services.db('reviews').where({ store_env_id: tenant.storeId, status: 'published' }).first('id')
  for (const ip of ['198.51.100.7', '198.51.100.8', '198.51.100.9']) {
    clock.advance(10 * DAY)
    t.equal((await storefront(app, { url: `/v1/reviews/${published.id}/helpful`, store: tenant.storeId, ip })).statusCode, 200)
  }
  const byMonth = '/v1/analytics/reviews?from=2024-01-01&to=2026-03-31&interval=month'
  const before = (await as('GET', byMonth)).json()
  const customerId = (await as('GET', `/v1/customers?email=${email}`)).json().data[0].id
  t.equal((await as('DELETE', `/v1/customers/${customerId}`)).statusCode, 204)
  t.same((await as('GET', byMonth)).json(), before, 'an erasure keeps the reviews, so it keeps their counts')

  for (const [days, periods] of [['review_rollups', 'review_period_rollups'], ['engagement_rollups', 'engagement_period_rollups']]) {
    const kept = await periodRows(app, tenant.storeId, days, periods)
    t.ok(kept.stored.length > 0, periods)
    t.same(kept.stored, kept.fromDays, `${periods} as kept`)
    await app.services.db.transaction((trx) => rebuildStore(trx, tenant.storeId))
    t.same((await periodRows(app, tenant.storeId, days, periods)).stored, kept.stored, `${periods} after a rebuild`)
  }
  t.same((await as('GET', byMonth)).json(), before)
})
