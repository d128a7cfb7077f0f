import t from 'tap'
import { sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { onlyJson, runCli } from './run-cli.js'

t.test('store create --json prints { store: { id } } and creates the store in the organization', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli(['store', 'create', '--org', tenant.orgId, '--name', 'Outlet', '--plan', 'growth', '--json'])
  t.equal(res.code, 0, res.stderr)
  const out = onlyJson(res.stdout) as { store: { id: string } }
  t.match(out, { store: { id: /^env_/ } })
  t.same(Object.keys(out), ['store'])
  const row = await app.db('store_envs').where({ id: out.store.id }).first()
  t.match(row, { org_id: tenant.orgId, name: 'Outlet', plan: 'growth' })
})

t.test('store create for an unknown organization exits non-zero with a message on stderr', async (t) => {
  const res = await runCli(['store', 'create', '--org', 'org_nope', '--name', 'Outlet', '--json'])
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, /Organization not found/)
})

t.test('store set-plan --json prints the store\'s new plan and status', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli(['store', 'set-plan', '--store', tenant.storeId, '--plan', 'pro', '--status', 'lapsed', '--json'])
  t.equal(res.code, 0, res.stderr)
  t.same(onlyJson(res.stdout), { store: { id: tenant.storeId, plan: 'pro', status: 'lapsed' } })
  t.match(await app.db('store_envs').where({ id: tenant.storeId }).first(), { plan: 'pro', subscription_status: 'lapsed' })
})

t.test('store set-plan with an unknown plan exits non-zero and changes nothing', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli(['store', 'set-plan', '--store', tenant.storeId, '--plan', 'platinum', '--json'])
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, /--plan must be one of free, growth, pro/)
  t.equal((await app.db('store_envs').where({ id: tenant.storeId }).first()).plan, 'growth')
})
