import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, onMysql, statementsOf } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { marker } from '../../src/lib/freshness.js'

/** Routes answering the marker values this request's limiter call read, and a route that authenticates itself. */
async function markerProbes (app: FastifyInstance) {
  const seen = async (request: { storeMarker: string | null, keptSeen: string | null }) => ({
    storeMarker: request.storeMarker,
    keptSeen: request.keptSeen
  })
  app.get('/v1/reviews/kept', { config: { keptUnder: 'reviews' } }, seen)
  app.get('/v1/reviews/plain', seen)
  app.get('/v1/reviews/unscoped', { config: { storeScoped: false } }, seen)
  app.get('/self/:charge', async (request, reply) => {
    const credential = await app.authenticate(request, reply, { charge: (request.params as { charge: string }).charge === 'charged' })
    return { id: credential.id }
  })
}

/** The Redis commands `app` sends on its own connection from now until the test ends: name, then arguments. */
function redisCommandsOf (t: Test, app: FastifyInstance): string[] {
  const names: string[] = []
  const redis = app.redis!
  const send = redis.sendCommand
  redis.sendCommand = function (this: typeof redis, ...args: Parameters<typeof send>) {
    names.push([args[0].name, ...args[0].args].join(' '))
    return send.apply(this, args)
  } as typeof send
  t.teardown(() => { redis.sendCommand = send })
  return names
}

t.test('a warm request is one Redis call and no SQL', { skip: onMysql ? false : 'no Redis on the embedded half' }, async (t) => {
  const app = await build(t, { routes: markerProbes })
  const tenant = await makeTenant(app)
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews/kept', key: tenant.key, store: tenant.storeId })).statusCode, 200)
  const queries = statementsOf(t, app)
  const commands = redisCommandsOf(t, app)
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews/kept', key: tenant.key, store: tenant.storeId })).statusCode, 200)
  t.same(queries, [])
  t.equal(commands.length, 1)
  t.match(
    commands[0],
    /^evalsha .*gen:key:.*gen:store:.*gen:reviews:/,
    'the limiter script, which also read the key\'s, the store\'s and the kept markers'
  )
})

t.test('the limiter call reads the store\'s marker and the route\'s kept marker, each moving on its own', async (t) => {
  const app = await build(t, { routes: markerProbes })
  const tenant = await makeTenant(app)
  const read = async () => (await call(app, { method: 'GET', url: '/v1/reviews/kept', key: tenant.key, store: tenant.storeId })).json()
  const before = await read()
  if (!onMysql) {
    t.same(before, { storeMarker: null, keptSeen: null }, 'no Redis: nothing read, so nothing may be kept')
    return
  }
  await app.services.freshness.bump([marker.reviews(tenant.storeId)])
  const afterReviews = await read()
  t.equal(afterReviews.storeMarker, before.storeMarker, 'the store marker stays')
  t.not(afterReviews.keptSeen, before.keptSeen, 'the reviews marker moved')
  await app.services.freshness.bump([marker.store(tenant.storeId)])
  const afterStore = await read()
  t.not(afterStore.storeMarker, afterReviews.storeMarker, 'the store marker moved')
  t.equal(afterStore.keptSeen, afterReviews.keptSeen, 'the reviews marker stays')
})

t.test('a route that keeps nothing reads only the store marker, and one without a store none', {
  skip: onMysql ? false : 'no Redis on the embedded half'
}, async (t) => {
  const app = await build(t, { routes: markerProbes })
  const tenant = await makeTenant(app)
  const plain = (await call(app, { method: 'GET', url: '/v1/reviews/plain', key: tenant.key, store: tenant.storeId })).json()
  t.type(plain.storeMarker, 'string')
  t.equal(plain.keptSeen, null)
  const unscoped = (await call(app, { method: 'GET', url: '/v1/reviews/unscoped', key: tenant.key, store: tenant.storeId })).json()
  t.same(unscoped, { storeMarker: null, keptSeen: null }, 'storeScoped: false names no store, whatever the header')
})

t.test('an x-store-env-id longer than any store id names no marker', async (t) => {
  const app = await build(t, { routes: markerProbes })
  const tenant = await makeTenant(app)
  const commands = onMysql ? redisCommandsOf(t, app) : []
  const long = `env_${'x'.repeat(60)}`
  const res = await call(app, { method: 'GET', url: '/v1/reviews/kept', key: tenant.key, store: long })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'store_env_not_found')
  if (onMysql) {
    t.match(commands.join('\n'), /evalsha/, 'the limiter was called')
    t.notOk(commands.some((command) => command.includes(long)), 'with no key made of the header')
  }
})

t.test('app.authenticate charges the credential\'s budget only when asked to', async (t) => {
  const app = await build(t, { routes: markerProbes })
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer')
  const uncharged = await call(app, { method: 'GET', url: '/self/uncharged', key: key.secret })
  t.equal(uncharged.statusCode, 200)
  t.type(uncharged.json().id, 'string')
  t.notOk(uncharged.headers['ratelimit-limit'], 'no limiter call')
  const charged = await call(app, { method: 'GET', url: '/self/charged', key: key.secret })
  t.equal(charged.headers['ratelimit-limit'], '10')
  t.equal(charged.headers['ratelimit-remaining'], '9', 'the uncharged call was not counted')
})

t.test('app.authenticate without a charge still sees a key revoked since this instance held it', async (t) => {
  const app = await build(t, { routes: markerProbes })
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer')
  t.equal((await call(app, { method: 'GET', url: '/self/charged', key: key.secret })).statusCode, 200)
  t.equal((await call(app, { method: 'GET', url: '/self/uncharged', key: key.secret })).statusCode, 200)
  t.equal((await call(app, { method: 'DELETE', url: `/v1/api-keys/${key.id}`, key: tenant.key, store: tenant.storeId })).statusCode, 200)
  const refused = await call(app, { method: 'GET', url: '/self/uncharged', key: key.secret })
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().code, 'invalid_credentials')
})
