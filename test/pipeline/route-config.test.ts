import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'

/** Routes answering the config the pipeline settled for them. */
async function configProbes (app: FastifyInstance) {
  const settled = async (request: { routeOptions: { config: { auth?: string, resource?: string } } }) => {
    const { auth, resource } = request.routeOptions.config
    return { auth, resource: resource ?? null }
  }
  app.get('/v1/reviews/settled', settled)
  app.get('/v1/reviews/as-products', { config: { resource: 'products' } }, settled)
  app.get('/outside/settled', settled)
}

t.test('a route under /v1 needs a credential by default and is checked against its first path segment', async (t) => {
  const app = await build(t, { routes: configProbes })
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'GET', url: '/v1/reviews/settled', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { auth: 'credential', resource: 'reviews' })
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews/settled', store: tenant.storeId })).json().code, 'missing_credentials')
})

t.test('a route outside /v1 needs nothing and spends no budget', async (t) => {
  const app = await build(t, { routes: configProbes })
  const res = await app.inject({ method: 'GET', url: '/outside/settled' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { auth: 'none', resource: null })
  t.notOk(res.headers['ratelimit-limit'], 'no limiter call')
})

t.test('a route that names its resource is checked against it, not against its path', async (t) => {
  const app = await build(t, { routes: configProbes })
  const tenant = await makeTenant(app)
  const products = await makeKey(app, tenant, 'viewer', ['products:read'])
  const reviews = await makeKey(app, tenant, 'viewer', ['reviews:read'])
  const res = await call(app, { method: 'GET', url: '/v1/reviews/as-products', key: products.secret, store: tenant.storeId })
  t.same(res.json(), { auth: 'credential', resource: 'products' })
  const refused = await call(app, { method: 'GET', url: '/v1/reviews/as-products', key: reviews.secret, store: tenant.storeId })
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'insufficient_scope')
})

t.test('a /v1 route whose first segment is no resource, and that names none, stops the app from starting', async (t) => {
  await t.rejects(
    build(t, {
      routes: async (app) => {
        app.get('/v1/nonsense/probe', async () => ({}))
      }
    }),
    /needs config\.resource: "nonsense" is not a resource/
  )
})
