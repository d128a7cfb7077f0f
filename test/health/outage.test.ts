import t from 'tap'
import { createServer, connect, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { build, onMysql, TEST_DATABASE_URL } from '../helper.js'

/** A TCP proxy in front of MySQL that the test can cut and restore, on the same port. */
async function mysqlProxy (target: URL) {
  const sockets = new Set<Socket>()
  let server: Server | null = null
  let port = 0
  const open = () => new Promise<void>((resolve) => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 3306), target.hostname)
      for (const s of [client, upstream]) {
        sockets.add(s)
        s.on('close', () => sockets.delete(s))
        s.on('error', () => { client.destroy(); upstream.destroy() })
      }
      client.pipe(upstream).pipe(client)
    })
    server.listen(port, '127.0.0.1', () => {
      port = (server!.address() as AddressInfo).port
      resolve()
    })
  })
  const cut = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy()
    server!.close(() => resolve())
  })
  await open()
  return { port: () => port, cut, restore: open, close: cut }
}

t.test('health goes to 503 naming the database when the database is cut off, and back to 200 when restored', {
  skip: !onMysql && 'needs MySQL'
}, async (t) => {
  const target = new URL(TEST_DATABASE_URL)
  const proxy = await mysqlProxy(target)
  const url = new URL(TEST_DATABASE_URL)
  url.host = `127.0.0.1:${proxy.port()}`
  const app = await build(t, { config: { databaseUrl: url.toString() } })
  t.teardown(() => proxy.close())

  const up = await app.inject({ method: 'GET', url: '/v1/health' })
  t.equal(up.statusCode, 200)
  t.equal(up.json().checks.database, 'ok')

  await proxy.cut()
  const down = await app.inject({ method: 'GET', url: '/v1/health' })
  t.equal(down.statusCode, 503)
  t.match(down.json(), { status: 'unavailable', checks: { database: 'error' }, code: 'service_unavailable', message: String })

  await proxy.restore()
  const back = await app.inject({ method: 'GET', url: '/v1/health' })
  t.equal(back.statusCode, 200)
  t.same(back.json(), { status: 'ok', checks: { database: 'ok', redis: 'ok' } })
})

t.test(
  'an API call that needs the unreachable database gets 503 service_unavailable without details',
  { skip: !onMysql && 'needs MySQL' },
  async (t) => {
    const proxy = await mysqlProxy(new URL(TEST_DATABASE_URL))
    const url = new URL(TEST_DATABASE_URL)
    url.host = `127.0.0.1:${proxy.port()}`
    const app = await build(t, { config: { databaseUrl: url.toString() } })
    t.teardown(() => proxy.close())
    await proxy.cut()
    const res = await app.inject({ method: 'GET', url: '/v1/account/stores', headers: { authorization: 'Bearer svc_' + 'a'.repeat(40) } })
    t.equal(res.statusCode, 503)
    t.same(res.json(), { message: 'The database is unreachable', code: 'service_unavailable', requestId: res.headers['x-request-id'] })
  }
)
