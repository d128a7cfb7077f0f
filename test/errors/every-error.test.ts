import t from 'tap'
import type { AddressInfo } from 'node:net'
import { build } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { errors } from '../../src/errors.js'

/**
 * Issue 47, point 2, through a real HTTP client: every error family answers JSON with its content type and with
 * `requestId` equal to the `x-request-id` header, whichever step refused it.
 */
async function served (t: Parameters<typeof build>[0]) {
  const app = await build(t, {
    routes: async (app) => {
      app.get('/v1/test-conflict', { config: { auth: 'public' } }, async () => { throw new errors.Conflict('Already there') })
    }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  return { app, base: `http://127.0.0.1:${port}` }
}

async function errorOf (res: Response) {
  return { status: res.status, type: res.headers.get('content-type'), header: res.headers.get('x-request-id'), body: await res.json() }
}

t.test('every error family carries the JSON content type and a requestId equal to x-request-id', async (t) => {
  const { app, base } = await served(t)
  const tenant = await makeTenant(app)
  const viewer = await makeKey(app, tenant, 'viewer')
  const as = (key: string) => ({ authorization: `Bearer ${key}`, 'x-store-env-id': tenant.storeId })
  const json = { 'content-type': 'application/json' }
  const answers = [
    ['400', await fetch(`${base}/v1/products?limit=0`, { headers: as(tenant.key) })],
    ['401 missing', await fetch(`${base}/v1/products`)],
    ['401 invalid', await fetch(`${base}/v1/products`, { headers: { authorization: 'Bearer svc_unknown' } })],
    ['403', await fetch(`${base}/v1/products`, { method: 'PUT', headers: { ...as(viewer.secret), ...json }, body: '{"products":[]}' })],
    ['404', await fetch(`${base}/v1/nothing-here`)],
    ['405', await fetch(`${base}/v1/products`, { method: 'DELETE' })],
    ['409', await fetch(`${base}/v1/test-conflict`)],
    [
      '413',
      await fetch(`${base}/v1/products`, {
        method: 'PUT',
        headers: { ...as(tenant.key), ...json },
        body: `"${'x'.repeat(6 * 1024 * 1024)}"`
      })
    ],
    ['415', await fetch(`${base}/v1/products`, { method: 'PUT', headers: { ...as(tenant.key), 'content-type': 'text/plain' }, body: 'x' })]
  ] as const
  const statuses = []
  for (const [name, res] of answers) {
    const answer = await errorOf(res)
    statuses.push(answer.status)
    t.equal(answer.type, 'application/json; charset=utf-8', `${name}: content type`)
    t.match(answer.header, /^req_[0-9A-Za-z]{20}$/, `${name}: x-request-id`)
    t.equal(answer.body.requestId, answer.header, `${name}: requestId is the header`)
    t.type(answer.body.code, 'string', `${name}: code`)
  }
  t.same(statuses, [400, 401, 401, 403, 404, 405, 409, 413, 415])
})

t.test('a 429 carries the JSON content type and a requestId equal to x-request-id', async (t) => {
  const { base } = await served(t)
  let res: Response | undefined
  // The per-IP budget of failed authentications (plugins/rate-limit.ts AUTH_FAILURE_WINDOWS) is 30 a minute.
  for (let i = 0; i < 31; i++) {
    res = await fetch(`${base}/v1/products`, { headers: { authorization: 'Bearer svc_unknown' } })
    if (res.status === 429) break
    await res.arrayBuffer()
  }
  const answer = await errorOf(res!)
  t.equal(answer.status, 429)
  t.equal(answer.type, 'application/json; charset=utf-8')
  t.equal(answer.body.code, 'rate_limited')
  t.equal(answer.body.requestId, answer.header)
})

t.test('a client\'s own X-Request-Id of safe characters is kept, echoed and repeated in the error body', async (t) => {
  const { base } = await served(t)
  const mine = 'client-42.retry:1_A'
  const answer = await errorOf(await fetch(`${base}/v1/nothing-here`, { headers: { 'x-request-id': mine } }))
  t.equal(answer.header, mine)
  t.equal(answer.body.requestId, mine)
})

t.test('a client\'s X-Request-Id is kept on a success too', async (t) => {
  const { base } = await served(t)
  const res = await fetch(`${base}/v1/health`, { headers: { 'x-request-id': 'health-probe-7' } })
  t.equal(res.status, 200)
  t.equal(res.headers.get('x-request-id'), 'health-probe-7')
})

t.test('an X-Request-Id with unsafe characters or over 64 characters is replaced by one of ours, not refused', async (t) => {
  const { base } = await served(t)
  for (const sent of ['has space', 'quote"d', 'é', 'a'.repeat(65)]) {
    const answer = await errorOf(await fetch(`${base}/v1/nothing-here`, { headers: { 'x-request-id': sent } }))
    t.equal(answer.status, 404, sent)
    t.match(answer.header, /^req_[0-9A-Za-z]{20}$/, sent)
    t.equal(answer.body.requestId, answer.header, sent)
  }
})

t.test('an X-Request-Id of exactly 64 safe characters is kept', async (t) => {
  const { base } = await served(t)
  const sent = 'b'.repeat(64)
  const res = await fetch(`${base}/v1/nothing-here`, { headers: { 'x-request-id': sent } })
  t.equal(res.headers.get('x-request-id'), sent)
})

t.test('the router\'s own refusal of a URL carries the request id too', async (t) => {
  const { base } = await served(t)
  const answer = await errorOf(await fetch(`${base}/v1/products/%E0%A4%A`, { headers: { 'x-request-id': 'bad-url-1' } }))
  t.equal(answer.status, 400)
  t.equal(answer.type, 'application/json; charset=utf-8')
  t.equal(answer.header, 'bad-url-1')
  t.equal(answer.body.requestId, 'bad-url-1')
})
