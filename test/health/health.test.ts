import t from 'tap'
import { build, onMysql } from '../helper.js'

t.test('GET /v1/health answers 200 with the checks, without credentials or store header', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/v1/health' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok', checks: { database: 'ok', redis: onMysql ? 'ok' : 'not_configured' } })
})

t.test('health reports Redis as not_configured when the app runs without it', async (t) => {
  const app = await build(t, { redis: null })
  const res = await app.inject({ method: 'GET', url: '/v1/health' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().checks.redis, 'not_configured')
})
