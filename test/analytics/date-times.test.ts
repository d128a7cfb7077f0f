import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

async function setup () {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  return (url: string) => call(app, { method: 'GET', url, key: tenant.key, store: tenant.storeId })
}

t.test('analytics from and to accept full ISO 8601 date-times, each standing for its UTC day', async (t) => {
  const get = await setup()
  const res = await get('/v1/analytics/reviews?from=2026-03-01T10:15:00Z&to=2026-03-03T01:00:00%2B02:00')
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), { from: '2026-03-01', to: '2026-03-02' })
  t.equal(res.json().series.length, 2)
  t.equal((await get('/v1/analytics/storefront?from=2026-03-01T00:00:00.000Z&to=2026-03-01')).statusCode, 200)
})

t.test('an absurd date-time in from or to is a 400', async (t) => {
  const get = await setup()
  for (const query of ['from=2026-02-30T10:00:00Z', 'to=2026-03-01T24:61:00Z', 'from=0001-01-01T00:00:00Z']) {
    const res = await get(`/v1/analytics/reviews?${query}`)
    t.equal(res.statusCode, 400, query)
    t.equal(res.json().code, 'invalid_request', query)
  }
})
