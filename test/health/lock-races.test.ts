import t from 'tap'
import { build } from '../helper.js'

/** A transaction that loses a lock race was rolled back whole: the answer says so and invites a retry. */
const CODES = ['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY']

t.test('a request whose transaction loses a lock race gets 503 service_unavailable with Retry-After, whatever the database', async (t) => {
  const app = await build(t, {
    routes: async (app) => {
      for (const code of CODES) {
        app.get(`/v1/health/race-${code}`, { config: { auth: 'public' } }, async () => {
          throw Object.assign(new Error(`${code}: SELECT secret FROM t`), { code })
        })
      }
    }
  })
  for (const code of CODES) {
    const res = await app.inject({ method: 'GET', url: `/v1/health/race-${code}` })
    t.equal(res.statusCode, 503, code)
    t.equal(res.headers['retry-after'], '1', code)
    t.same(res.json(), {
      message: 'The request met a concurrent change and was not applied; retry it',
      code: 'service_unavailable',
      requestId: res.headers['x-request-id']
    }, code)
  }
})
