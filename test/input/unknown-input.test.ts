import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { asPerson, makeTenant, type Tenant } from '../factories.js'
import { documentOf, exampleOf, schemaValues } from '../schema-values.js'
import { readsOwnBody, routesSeen } from '../../src/plugins/strict-input.js'

/**
 * Issue 45, point 9: one rule on every route of the JSON API, routes added later included. An unknown body field or
 * query parameter is a 400 invalid_request whose message names it. The routes exempt from the rule, and why, are
 * listed in src/plugins/strict-input.ts; everything else under /v1 is walked here, as the app registered it.
 */

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

async function walk (app: FastifyInstance, tenant: Tenant, clock: ReturnType<typeof manualClock>, probe: 'query' | 'body') {
  const doc = await documentOf(app)
  const { url, value } = schemaValues(doc)
  const name = probe === 'query' ? 'unknownParam' : 'unknownField'
  const wrong: string[] = []
  let checked = 0
  for (const { method, url: route, exempt } of routesSeen(app)) {
    if (exempt || method === 'HEAD' || method === 'OPTIONS') continue
    if (probe === 'body' && !BODY_METHODS.has(method)) continue
    const path = route.replace(/:([A-Za-z]+)/g, '{$1}')
    const op = doc.paths[path]?.[method.toLowerCase()]
    const target = op ? url(path, op) : path.replace(/\{[A-Za-z]+\}/g, 'unknown')
    // The query probe sends a valid body where one is taken: fastify checks the body before the querystring.
    const bodySchema = op?.requestBody?.content?.['application/json']?.schema
    const valid = bodySchema ? exampleOf(op) ?? value(bodySchema, 'x') : undefined
    const payload = (probe === 'body' ? { ...(valid as object), unknownField: 1 } : valid) as object | undefined
    const query = probe === 'query' ? `?${name}=1` : ''
    clock.advance(61_000)
    let res = await call(app, {
      method: method as 'POST',
      url: target + query,
      key: tenant.key,
      store: tenant.storeId,
      headers: { origin: 'https://shop.example' },
      payload
    })
    // Routes only an owner may call (billing, the organization) are asked again as the owner.
    if (res.statusCode === 403 && res.json().code === 'role_forbidden') {
      res = await asPerson(app, tenant, tenant.owner, { method, url: target + query, payload })
    }
    checked++
    const answer = res.json()
    // Uploads refuse a JSON body whole (415: not the multipart or video they take), or a video URL without its token.
    if (probe === 'body' && readsOwnBody(route) && [400, 415].includes(res.statusCode)) continue
    if (res.statusCode !== 400 || answer.code !== 'invalid_request' || !String(answer.message).includes(name)) {
      wrong.push(`${method} ${route}: ${res.statusCode} ${res.body.slice(0, 200)}`)
    }
  }
  return { wrong, checked }
}

t.test('every route of the JSON API refuses an unknown query parameter with a 400 naming it', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const { wrong, checked } = await walk(app, await makeTenant(app), clock, 'query')
  t.same(wrong, [])
  t.ok(checked > 150, `${checked} operations checked`)
})

t.test('every route of the JSON API that takes a body refuses an unknown body field with a 400 naming it', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const { wrong, checked } = await walk(app, await makeTenant(app), clock, 'body')
  t.same(wrong, [])
  t.ok(checked > 50, `${checked} operations checked`)
})

t.test('a bulk upsert with a field beside its list is refused, naming the field', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [], foo: 1 }
  })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { code: 'invalid_request', message: /foo is not a known field/ })
})

t.test('an import with an unknown field is refused, naming the field', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: tenant.key,
    store: tenant.storeId,
    payload: { type: 'reviews', items: [], bogus: 1 }
  })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { code: 'invalid_request', message: /bogus is not a known field/ })
})

t.test('updatedSince on a list that does not take it is refused instead of returning everything', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'GET',
    url: '/v1/account/stores?updatedSince=2026-01-01T00:00:00Z',
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { code: 'invalid_request', message: /querystring\.updatedSince is not a known field/ })
})

t.test('an operation without a body refuses a body with fields and accepts an empty one', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const send = (payload?: object) =>
    call(app, { method: 'POST', url: '/v1/sending-domain/verify', key: tenant.key, store: tenant.storeId, payload })
  const refused = await send({ force: true })
  t.equal(refused.statusCode, 400)
  t.match(refused.json(), { code: 'invalid_request', message: /force is not a known field/ })
  t.not((await send({})).statusCode, 400)
  t.not((await send()).statusCode, 400)
})

t.test('an unsubscribe link keeps working with the parameters link trackers append', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/email/unsubscribe/not-a-token?utm_source=newsletter' })
  t.not(res.statusCode, 400)
})
