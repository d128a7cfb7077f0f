import t from 'tap'
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { build, call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

/** Writes raw bytes to the listening app and reads until the server closes the connection. */
function rawRequest (app: FastifyInstance, text: string): Promise<string> {
  const { port } = app.server.address() as AddressInfo
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    let out = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => { out += chunk })
    socket.on('error', reject)
    socket.on('close', () => resolve(out))
  })
}

function parse (response: string) {
  const [head, body] = response.split('\r\n\r\n')
  return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) }
}

async function listening (t: Parameters<typeof build>[0], options: Parameters<typeof build>[1] = {}) {
  const app = await build(t, options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  return app
}

t.test('a request with a malformed header line gets 400 invalid_request in the error shape', async (t) => {
  const app = await listening(t)
  const res = parse(await rawRequest(app, 'GET /v1/health HTTP/1.1\r\nHost: localhost\r\nthis is not a header\r\n\r\n'))
  t.equal(res.status, 400)
  t.match(res.head, /content-type: application\/json/i)
  t.same(Object.keys(res.body).sort(), ['code', 'message', 'requestId'])
  t.equal(res.body.code, 'invalid_request')
})

t.test('headers over Node\'s size limit get 431 in the error shape', async (t) => {
  const app = await listening(t)
  const res = parse(await rawRequest(app, `GET /v1/health HTTP/1.1\r\nHost: localhost\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`))
  t.equal(res.status, 431)
  t.same(Object.keys(res.body).sort(), ['code', 'message', 'requestId'])
  t.equal(res.body.code, 'invalid_request')
})

t.test('an Expect header other than 100-continue gets 417 in the error shape', async (t) => {
  const app = await listening(t)
  const res = parse(await rawRequest(app, 'GET /v1/health HTTP/1.1\r\nHost: localhost\r\nExpect: something-else\r\n\r\n'))
  t.equal(res.status, 417)
  t.same(Object.keys(res.body).sort(), ['code', 'message', 'requestId'])
})

t.test('a URL whose percent-escape does not decode gets 400 invalid_request in the error shape', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/products/%E0%A4%A', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 400)
  t.same(Object.keys(res.json()).sort(), ['code', 'message', 'requestId'])
  t.equal(res.json().code, 'invalid_request')
})

t.test('a path segment beyond the router\'s limit gets 414 in the error shape', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: `/v1/products/${'p'.repeat(5000)}`, key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 414)
  t.same(Object.keys(res.json()).sort(), ['code', 'message', 'requestId'])
  t.equal(res.json().code, 'invalid_request')
})

t.test('an unknown route gets 404 not_found in the error shape', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/nothing-here' })
  t.equal(res.statusCode, 404)
  t.same(Object.keys(res.json()).sort(), ['code', 'message', 'requestId'])
  t.equal(res.json().code, 'not_found')
})

t.test('a request that arrives while the server shuts down gets 503 service_unavailable in the error shape', async (t) => {
  let release = () => {}
  let entered = () => {}
  const inHandler = new Promise<void>((resolve) => { entered = resolve })
  const app = await listening(t, {
    routes: async (app) => {
      app.get('/v1/slow-probe', { config: { auth: 'public' } }, async () => {
        entered()
        await new Promise<void>((resolve) => { release = resolve })
        return { ok: true }
      })
    }
  })
  const { port } = app.server.address() as AddressInfo
  const socket = connect(port, '127.0.0.1')
  let out = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk) => { out += chunk })
  const closed = new Promise((resolve) => socket.on('close', resolve))
  socket.write('GET /v1/slow-probe HTTP/1.1\r\nHost: localhost\r\n\r\n')
  await inHandler
  const closing = app.close()
  socket.write('GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n')
  await new Promise((resolve) => setTimeout(resolve, 100))
  release()
  await closed
  await closing
  const second = out.slice(out.indexOf('HTTP/1.1', 1))
  const res = parse(second)
  t.equal(res.status, 503)
  t.same(res.body, { message: res.body.message, code: 'service_unavailable', requestId: res.body.requestId })
  t.match(res.head, new RegExp(`x-request-id: ${res.body.requestId}\r\n`, 'i'))
})

t.test('every error answer says it is JSON: not found, unauthenticated, invalid and too large', async (t) => {
  const app = await sharedApp()
  const answers = [
    await app.inject({ method: 'GET', url: '/v1/nope' }),
    await app.inject({ method: 'GET', url: '/v1/reviews' }),
    await app.inject({ method: 'POST', url: '/v1/products', headers: { 'content-type': 'application/json' }, payload: '{"' }),
    await app.inject({
      method: 'POST',
      url: '/v1/products',
      headers: { 'content-type': 'application/json' },
      payload: `"${'x'.repeat(6 * 1024 * 1024)}"`
    })
  ]
  t.same(answers.map((res) => res.statusCode), [404, 401, 400, 413])
  for (const res of answers) {
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8', `${res.statusCode}`)
    t.type(res.json().code, 'string')
  }
})
