import t from 'tap'
import { sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { onlyJson, runCli } from './run-cli.js'

t.test('store set-origins --json replaces the list and prints { store: { id, origins } } normalised', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli([
    'store',
    'set-origins',
    '--store',
    tenant.storeId,
    '--origin',
    'HTTPS://Outlet.Example:443/',
    '--origin',
    'http://localhost:3000',
    '--json'
  ])
  t.equal(res.code, 0, res.stderr)
  t.same(onlyJson(res.stdout), { store: { id: tenant.storeId, origins: ['https://outlet.example', 'http://localhost:3000'] } })
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, ['https://outlet.example', 'http://localhost:3000'])
  const entry = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'store.origins_updated' }).first()
  t.match(entry, { actor: 'cli', subject: `store:${tenant.storeId}` })
})

t.test('store set-origins refuses an origin with a path, exits non-zero and changes nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli(['store', 'set-origins', '--store', tenant.storeId, '--origin', 'https://shop.example/widgets', '--json'])
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, 'https://shop.example/widgets is not an origin')
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, ['https://shop.example'])
})

t.test('store set-origins needs --none to allow no origin, and then closes the storefront', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const forgotten = await runCli(['store', 'set-origins', '--store', tenant.storeId, '--json'])
  t.not(forgotten.code, 0)
  t.match(forgotten.stderr, 'give at least one --origin, or --none')
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, ['https://shop.example'])
  const closed = await runCli(['store', 'set-origins', '--store', tenant.storeId, '--none', '--json'])
  t.equal(closed.code, 0, closed.stderr)
  t.same(onlyJson(closed.stdout), { store: { id: tenant.storeId, origins: [] } })
})

t.test('store create validates its --origin the same way', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli(['store', 'create', '--org', tenant.orgId, '--name', 'Outlet', '--origin', 'null', '--json'])
  t.not(res.code, 0)
  t.match(res.stderr, '"null" cannot be allowed')
  t.equal((await app.db('store_envs').where({ org_id: tenant.orgId, name: 'Outlet' })).length, 0)
})

t.test('store set-origins for an unknown store exits non-zero with a message on stderr', async (t) => {
  const res = await runCli(['store', 'set-origins', '--store', 'env_nope', '--origin', 'https://shop.example', '--json'])
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, /Store environment not found/)
})
