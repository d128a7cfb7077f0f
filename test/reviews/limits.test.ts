import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'

async function setup () {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  return { app, tenant }
}

let visitor = 0
/** Each submission from its own visitor IP, clear of the per-IP limits. */
const submit = (app: FastifyInstance, tenant: Tenant, fields: Record<string, unknown>) =>
  storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    ip: `198.51.100.${++visitor}`,
    payload: { productId: 'p1', rating: 4, body: 'Good', authorName: 'Ann', authorEmail: 'ann@example.test', ...fields }
  })
const review = (app: FastifyInstance, tenant: Tenant, id: string) =>
  call(app, { method: 'GET', url: `/v1/reviews/${id}`, key: tenant.key, store: tenant.storeId })

t.test('a review body of 10,000 control characters is stored, and the merchant can still reply at full length', async (t) => {
  const { app, tenant } = await setup()
  const body = '\u0001'.repeat(10_000)
  const created = await submit(app, tenant, { body, title: '\u0002'.repeat(300) })
  t.equal(created.statusCode, 201)
  const reply = '\u0003'.repeat(5000)
  const res = await call(app, {
    method: 'PATCH',
    url: `/v1/reviews/${created.json().id}`,
    key: tenant.key,
    store: tenant.storeId,
    payload: { status: 'published', reply }
  })
  t.equal(res.statusCode, 200)
  t.equal(res.json().reply.body, reply)
  const got = (await review(app, tenant, created.json().id)).json()
  t.equal(got.body, body)
  t.equal(got.reply.body, reply)
})

t.test('a review of 4-byte characters at every maximum length is stored and served as sent', async (t) => {
  const { app, tenant } = await setup()
  const fields = { title: '😀'.repeat(300), body: '😀'.repeat(10_000), authorName: '😀'.repeat(200) }
  const created = await submit(app, tenant, fields)
  t.equal(created.statusCode, 201)
  t.match((await review(app, tenant, created.json().id)).json(), fields)
  const reply = '😀'.repeat(5000)
  const res = await call(app, {
    method: 'PATCH',
    url: `/v1/reviews/${created.json().id}`,
    key: tenant.key,
    store: tenant.storeId,
    payload: { reply }
  })
  t.equal(res.json().reply.body, reply)
})

t.test('NUL characters in a review are stored as sent', async (t) => {
  const { app, tenant } = await setup()
  const created = await submit(app, tenant, { body: 'a\u0000b', authorName: '\u0000' })
  t.equal(created.statusCode, 201)
  t.match((await review(app, tenant, created.json().id)).json(), { body: 'a\u0000b', authorName: '\u0000' })
})

t.test('review fields one character over their limit are refused with 400 invalid_request', async (t) => {
  const { app, tenant } = await setup()
  for (
    const fields of [{ body: '😀'.repeat(10_001) }, { title: 'x'.repeat(301) }, { authorName: 'x'.repeat(201) }, {
      authorEmail: `${'a'.repeat(310)}@example.test`
    }, { productId: 'x'.repeat(192) }]
  ) {
    const res = await submit(app, tenant, fields)
    t.equal(res.statusCode, 400, Object.keys(fields)[0])
    t.equal(res.json().code, 'invalid_request')
  }
  const created = await submit(app, tenant, {})
  const reply = await call(app, {
    method: 'PATCH',
    url: `/v1/reviews/${created.json().id}`,
    key: tenant.key,
    store: tenant.storeId,
    payload: { reply: 'x'.repeat(5001) }
  })
  t.equal(reply.statusCode, 400)
})

t.test('a review with a lone surrogate or an absurd number is refused with 400 invalid_request', async (t) => {
  const { app, tenant } = await setup()
  for (
    const payload of [
      '{"productId":"p1","rating":4,"body":"half an emoji \\ud83d","authorName":"Ann","authorEmail":"ann@example.test"}',
      '{"productId":"p1","rating":1e400,"body":"b","authorName":"Ann","authorEmail":"ann@example.test"}'
    ]
  ) {
    const res = await storefront(app, {
      url: '/v1/reviews',
      store: tenant.storeId,
      ip: `198.51.100.${++visitor}`,
      payload,
      headers: { 'content-type': 'application/json' }
    })
    t.equal(res.statusCode, 400)
    t.equal(res.json().code, 'invalid_request')
  }
})
