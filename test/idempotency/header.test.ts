import t from 'tap'
import { build, call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { keyed, review } from './support.js'
import { storefront } from '../storefront.js'

const body = { type: 'reviews', items: [review(1)] }

for (const [name, value] of [
  ['an empty key', ''],
  ['a key of 256 characters', 'k'.repeat(256)],
  ['a key with a control character', 'key\u0001one'],
  ['a key with a tab', 'key\tone'],
  ['a key with a non-ASCII letter', 'clé-1'],
  ['a key with an emoji', 'key-😀']
] as const) {
  t.test(`${name} is 400 invalid_request and nothing runs`, async (t) => {
    const app = await sharedApp()
    const tenant = await makeTenant(app)
    const res = await keyed(app, tenant, 'POST', '/v1/imports', body, value)
    t.equal(res.statusCode, 400)
    t.equal(res.json().code, 'invalid_request')
    t.match(res.json().message, /Idempotency-Key/)
    t.equal((await keyed(app, tenant, 'GET', '/v1/imports')).json().meta.total, 0)
  })
}

t.test('a key of 255 printable characters, spaces and symbols included, is accepted', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = ('a Z~!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}' + 'x'.repeat(255)).slice(0, 255)
  const first = await keyed(app, tenant, 'POST', '/v1/imports', body, key)
  const again = await keyed(app, tenant, 'POST', '/v1/imports', body, key)
  t.equal(first.statusCode, 201)
  t.equal(again.headers['idempotent-replayed'], 'true')
})

t.test('keys differing only in case are different keys', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await keyed(app, tenant, 'POST', '/v1/imports', body, 'Key-1')
  const other = await keyed(app, tenant, 'POST', '/v1/imports', { type: 'reviews', items: [review(2)] }, 'key-1')
  t.equal(other.statusCode, 201)
})

t.test('a GET ignores the header, even a malformed one', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await keyed(app, tenant, 'GET', '/v1/imports', undefined, '')
  t.equal(res.statusCode, 200)
})

t.test('a storefront POST ignores the header', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await keyed(app, tenant, 'PUT', '/v1/products', { products: [{ platformProductId: 'p1', title: 'Linen shirt' }] })
  const submit = (ip: string) => storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    ip,
    headers: { 'idempotency-key': 'same' },
    payload: { productId: 'p1', rating: 4, body: 'Nice', authorName: 'Dee', authorEmail: 'dee@example.test' }
  })
  const first = await submit('198.51.100.21')
  const second = await submit('198.51.100.22')
  t.equal(first.statusCode, 201, first.body)
  t.equal(second.statusCode, 201, second.body)
  t.notOk(second.headers['idempotent-replayed'])
  t.not(second.json().id, first.json().id)
})

t.test('an operation whose body is streamed refuses the key with 400 rather than run unguarded', async (t) => {
  let runs = 0
  const app = await build(t, {
    routes: async (app) => {
      await app.register(async (scope) => {
        scope.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload))
        // A path the one content-type rule leaves to its handler (plugins/strict-input.ts), as uploads are.
        scope.post('/v1/uploads/:id', async (request, reply) => {
          runs++
          await (request.body as NodeJS.ReadableStream & { toArray: () => Promise<unknown[]> }).toArray()
          return reply.status(201).send({ ok: true })
        })
      })
    }
  })
  const tenant = await makeTenant(app)
  const send = (headers: Record<string, string>) => call(app, {
    method: 'POST',
    url: '/v1/uploads/stream-probe',
    key: tenant.key,
    store: tenant.storeId,
    payload: Buffer.from('bytes'),
    headers: { 'content-type': 'application/octet-stream', ...headers }
  })
  const withKey = await send({ 'idempotency-key': 'stream-1' })
  t.equal(withKey.statusCode, 400)
  t.match(withKey.json(), { code: 'invalid_request', message: /streamed/ })
  t.equal(runs, 0)
  t.equal((await send({})).statusCode, 201, 'without the key it runs')
})
