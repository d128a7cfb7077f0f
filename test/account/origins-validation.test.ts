import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'

async function setup () {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const put = (origins: unknown) =>
    call(app, { method: 'PUT', url: `/v1/account/stores/${tenant.storeId}/origins`, key: tenant.key, payload: { origins } })
  const unchanged = async () => (await app.stores.find(tenant.storeId))!.allowedOrigins
  return { app, tenant, put, unchanged }
}

t.test('an origin with a path, query, fragment or user info is refused with 400 and changes nothing', async (t) => {
  const { put, unchanged } = await setup()
  for (
    const origin of [
      'https://shop.example/shop',
      'https://shop.example?a=1',
      'https://shop.example#top',
      'https://user:pw@shop.example',
      'https://shop.example//'
    ]
  ) {
    const res = await put([origin])
    t.equal(res.statusCode, 400, origin)
    t.equal(res.json().code, 'invalid_request')
    t.match(res.json().message, 'without path, query or fragment', origin)
  }
  t.same(await unchanged(), ['https://shop.example'])
})

t.test('a scheme other than http or https is refused', async (t) => {
  const { put } = await setup()
  for (const origin of ['ftp://shop.example', 'chrome-extension://abcdef', 'javascript://shop.example']) {
    const res = await put([origin])
    t.equal(res.statusCode, 400, origin)
    t.match(res.json().message, 'must start with https:// or http://', origin)
  }
  t.match((await put(['shop.example'])).json().message, 'is not an origin')
})

t.test('the "null" origin is refused with a message that says why', async (t) => {
  const { put } = await setup()
  const res = await put(['null'])
  t.equal(res.statusCode, 400)
  t.match(res.json().message, 'sandboxed frames and local files')
})

t.test('wildcards and invalid host names are refused', async (t) => {
  const { put } = await setup()
  for (
    const origin of [
      'https://*.shop.example',
      'https://shop..example',
      'https://shop.example.',
      'https://-shop.example',
      'https://shop.example:0',
      'https://shop.example:99999'
    ]
  ) {
    const res = await put([origin])
    t.equal(res.statusCode, 400, origin)
    t.equal(res.json().code, 'invalid_request')
  }
})

t.test('a unicode host is stored in punycode, as browsers send it, and then passes the storefront check', async (t) => {
  const { app, tenant, put } = await setup()
  const res = await put(['https://Bücher.example'])
  t.equal(res.statusCode, 200)
  t.same(res.json(), { origins: ['https://xn--bcher-kva.example'] })
  const sf = await storefront(app, { url: '/v1/reviews', store: tenant.storeId, origin: 'https://xn--bcher-kva.example', payload: {} })
  t.not(sf.json().code, 'origin_not_allowed')
  t.equal(sf.headers['access-control-allow-origin'], 'https://xn--bcher-kva.example')
})

t.test('an origin over 300 characters, or a host over 253, is refused', async (t) => {
  const { put, unchanged } = await setup()
  const tooLong = await put([`https://${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.example`])
  t.equal(tooLong.statusCode, 400)
  t.match(tooLong.json().message, /origins\.0 must NOT have more than 300 characters/)
  const longHost = await put([`https://${['a', 'b', 'c', 'd', 'e'].map((c) => c.repeat(50)).join('.')}.example`])
  t.equal(longHost.statusCode, 400)
  t.match(longHost.json().message, 'at most 253 characters')
  const longLabel = await put([`https://${'a'.repeat(64)}.example`])
  t.equal(longLabel.statusCode, 400)
  t.same(await unchanged(), ['https://shop.example'])
})

t.test('more than 50 origins are refused; exactly 50 are accepted', async (t) => {
  const { put, unchanged } = await setup()
  const many = (n: number) => Array.from({ length: n }, (_, i) => `https://shop${i}.example`)
  const res = await put(many(51))
  t.equal(res.statusCode, 400)
  t.match(res.json().message, 'must NOT have more than 50 items')
  t.same(await unchanged(), ['https://shop.example'])
  const fifty = await put(many(50))
  t.equal(fifty.statusCode, 200)
  t.equal(fifty.json().origins.length, 50)
})

t.test('the message of a bad origin in a list says which one it is', async (t) => {
  const { put } = await setup()
  const res = await put(['https://ok.example', 'https://bad.example/path'])
  t.equal(res.statusCode, 400)
  t.match(res.json().message, /^Origin 2: https:\/\/bad\.example\/path is not an origin/)
})

t.test('a body without an origins array is refused by the schema', async (t) => {
  const { put } = await setup()
  for (const origins of ['https://shop.example', null, [1], [''], undefined]) {
    const res = await put(origins)
    t.equal(res.statusCode, 400, JSON.stringify(origins))
    t.equal(res.json().code, 'invalid_request')
  }
})
