import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'

// A refusal answers no Access-Control-Allow-Origin: the page of a removed origin must not read why it was refused,
// nor be told by a preflight that it may send.

const review = { productId: 'p1', rating: 5, body: 'Lovely', authorName: 'Ann', authorEmail: 'ann@example.test' }

/** A tenant whose widget was served from `removed` (so the store is held as it allowed it), then lost that origin. */
async function originRemoved (app: FastifyInstance) {
  const removed = `https://gone-${Math.random().toString(36).slice(2, 10)}.example`
  const tenant = await makeTenant(app, { origins: [removed, 'https://kept.example'] })
  const served = await storefront(app, {
    method: 'GET',
    url: '/v1/storefront/summary?productId=p1',
    store: tenant.storeId,
    origin: removed
  })
  const preflight = await corsPreflight(app, removed, 'GET', '/v1/storefront/summary')
  const put = await call(app, {
    method: 'PUT',
    url: `/v1/account/stores/${tenant.storeId}/origins`,
    key: tenant.key,
    payload: { origins: ['https://kept.example'] }
  })
  if (served.statusCode !== 200 || !preflight.headers['access-control-allow-origin'] || put.statusCode !== 200) {
    throw new Error('setup failed')
  }
  return { tenant, removed }
}

function corsPreflight (app: FastifyInstance, origin: string, method: string, url: string) {
  return app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type,x-store-env-id' }
  })
}

t.test('a widget read from a removed origin is refused 403 without Access-Control-Allow-Origin', async (t) => {
  const app = await sharedApp()
  const { tenant, removed } = await originRemoved(app)
  const res = await storefront(app, { method: 'GET', url: '/v1/storefront/summary?productId=p1', store: tenant.storeId, origin: removed })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'origin_not_allowed')
  t.equal(res.headers['access-control-allow-origin'], undefined)
  t.equal(res.headers['access-control-expose-headers'], undefined)
})

t.test('a review submitted from a removed origin is refused 403 without Access-Control-Allow-Origin', async (t) => {
  const app = await sharedApp()
  const { tenant, removed } = await originRemoved(app)
  const res = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, origin: removed, ip: '203.0.113.9', payload: review })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'origin_not_allowed')
  t.equal(res.headers['access-control-allow-origin'], undefined)
})

t.test('a preflight from an origin no store allows any more gets no Access-Control-Allow-Origin', async (t) => {
  const app = await sharedApp()
  const { removed } = await originRemoved(app)
  const res = await corsPreflight(app, removed, 'GET', '/v1/storefront/summary')
  t.equal(res.headers['access-control-allow-origin'], undefined)
  t.equal(res.headers['access-control-allow-methods'], undefined)
})

t.test('the origin the store kept is still answered with Access-Control-Allow-Origin, preflight and request', async (t) => {
  const app = await sharedApp()
  const { tenant } = await originRemoved(app)
  const origin = 'https://kept.example'
  t.equal((await corsPreflight(app, origin, 'POST', '/v1/reviews')).headers['access-control-allow-origin'], origin)
  const res = await storefront(app, { method: 'GET', url: '/v1/storefront/summary?productId=p1', store: tenant.storeId, origin })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['access-control-allow-origin'], origin)
})
