import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { addMember, asPerson, makeKey, makeTenant, type Tenant } from '../factories.js'
import { onlyJson, runCli } from '../cli/run-cli.js'

type App = Awaited<ReturnType<typeof sharedApp>>

const change = (app: App, tenant: Tenant, plan: unknown, person = { id: tenant.owner.id }) =>
  asPerson(app, tenant, person, { method: 'POST', url: '/v1/billing/subscription/change', payload: { plan } })

const subscriptionEvents = async (app: App, tenant: Tenant) =>
  (await call(app, { method: 'GET', url: '/v1/events?limit=100', key: tenant.key, store: tenant.storeId })).json().events
    .filter((e: { type: string }) => e.type === 'subscription.updated')

t.test('GET /billing/subscription shows the plan, its status, period and price in integer cents', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'growth' })
  const res = await call(app, { method: 'GET', url: '/v1/billing/subscription', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.match(res.json(), {
    storeEnvId: tenant.storeId,
    plan: 'growth',
    status: 'active',
    currentPeriodEnd: String,
    price: { amount: 4900, currency: 'USD', interval: 'month' },
    provider: 'embedded'
  })
})

t.test('the owner changes the plan: an invoice in cents, a subscription.updated event, and the pipeline follows at once', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'growth' })
  const before = await call(app, { method: 'POST', url: '/v1/outbound-webhooks', key: tenant.key, store: tenant.storeId, payload: {} })
  t.equal(before.statusCode, 400, 'growth may create webhooks (the empty body is refused after the plan check)')

  const res = await change(app, tenant, 'free')
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), { plan: 'free', status: 'active', price: { amount: 0 } })
  t.equal(
    (await call(app, { method: 'POST', url: '/v1/outbound-webhooks', key: tenant.key, store: tenant.storeId, payload: {} })).json().code,
    'plan_required'
  )

  t.equal((await change(app, tenant, 'pro')).json().plan, 'pro')
  const invoices = (await call(app, { method: 'GET', url: '/v1/billing/invoices', key: tenant.key, store: tenant.storeId })).json()
  t.equal(invoices.meta.total, 2)
  t.match(invoices.data[0], { plan: 'pro', previousPlan: 'free', amount: 14900, currency: 'USD', status: 'paid', provider: 'embedded' })
  t.ok(Number.isInteger(invoices.data[0].amount))
  t.match(invoices.data[1], { plan: 'free', previousPlan: 'growth', amount: 0 })

  const events = await subscriptionEvents(app, tenant)
  t.same(events.map((e: { data: { plan: string, previousPlan: string } }) => [e.data.previousPlan, e.data.plan]), [['growth', 'free'], [
    'free',
    'pro'
  ]])
  const audit = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'billing.plan_changed' }).count({ n: '*' }).first()
  t.equal(Number(audit!.n), 2)
})

t.test('asking for the plan the store already has changes nothing: no invoice, no event', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'growth' })
  const res = await change(app, tenant, 'growth')
  t.equal(res.statusCode, 200)
  t.equal(res.json().plan, 'growth')
  t.equal((await call(app, { method: 'GET', url: '/v1/billing/invoices', key: tenant.key, store: tenant.storeId })).json().meta.total, 0)
  t.same(await subscriptionEvents(app, tenant), [])
})

t.test('only the owner changes the plan: admins (people and keys) read billing, editors cannot see it, viewers only read', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const admin = await addMember(app, tenant, 'admin')
  const asAdmin = await change(app, tenant, 'pro', { id: admin.id, role: 'admin' } as never)
  t.equal(asAdmin.statusCode, 403)
  t.equal(asAdmin.json().code, 'role_forbidden')
  t.equal(
    (await call(app, {
      method: 'POST',
      url: '/v1/billing/subscription/change',
      key: tenant.key,
      store: tenant.storeId,
      payload: { plan: 'pro' }
    })).json().code,
    'role_forbidden'
  )
  t.equal((await call(app, { method: 'GET', url: '/v1/billing/subscription', key: tenant.key, store: tenant.storeId })).statusCode, 200)
  const editor = await makeKey(app, tenant, 'editor')
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/billing/invoices', key: editor.secret, store: tenant.storeId })).json().code,
    'role_forbidden'
  )
  const viewer = await makeKey(app, tenant, 'viewer')
  t.equal(
    (await call(app, {
      method: 'POST',
      url: '/v1/billing/subscription/change',
      key: viewer.secret,
      store: tenant.storeId,
      payload: { plan: 'pro' }
    })).json().code,
    'role_read_only'
  )
  t.equal((await app.db('store_envs').where({ id: tenant.storeId }).first()).plan, 'growth')
})

t.test('trialing and past_due stores become active with a change', async (t) => {
  const app = await sharedApp()
  for (const status of ['trialing', 'past_due'] as const) {
    const tenant = await makeTenant(app, { plan: 'growth', status })
    t.equal(
      (await call(app, { method: 'GET', url: '/v1/billing/subscription', key: tenant.key, store: tenant.storeId })).json().status,
      status
    )
    t.match((await change(app, tenant, 'pro')).json(), { plan: 'pro', status: 'active' }, status)
  }
})

t.test('a lapse by the operator: billing is still read, a change is refused, other resources too; reactivation restores', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'growth' })
  await change(app, tenant, 'pro')
  const lapse = await runCli(['store', 'set-plan', '--store', tenant.storeId, '--plan', 'pro', '--status', 'lapsed', '--json'])
  t.same(onlyJson(lapse.stdout), { store: { id: tenant.storeId, plan: 'pro', status: 'lapsed' } })
  // The CLI bumps markers under its own Redis prefix; this app's cache learns through its own services' bump.
  await app.services.freshness.bump([`store:${tenant.storeId}`])

  const sub = await call(app, { method: 'GET', url: '/v1/billing/subscription', key: tenant.key, store: tenant.storeId })
  t.equal(sub.statusCode, 200)
  t.equal(sub.json().status, 'lapsed')
  t.equal((await call(app, { method: 'GET', url: '/v1/billing/invoices', key: tenant.key, store: tenant.storeId })).json().meta.total, 1)
  const refused = await change(app, tenant, 'growth')
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'subscription_expired')
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/features', key: tenant.key, store: tenant.storeId })).json().code,
    'subscription_expired'
  )

  const events = await app.db('events').where({ store_env_id: tenant.storeId, type: 'subscription.updated' }).orderBy('id')
  t.match(JSON.parse(events.at(-1).data), { status: 'lapsed', previousStatus: 'active' }, 'the lapse is an event too')

  await app.services.billing.apply({ store: tenant.storeId, plan: 'pro', status: 'active' }, 'cli')
  t.match((await change(app, tenant, 'growth')).json(), { plan: 'growth', status: 'active' })
})

t.test('a plan change refuses an unknown plan and any other body with 400', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (
    const payload of [{ plan: 'platinum' }, { plan: 'PRO' }, {}, { plan: 'pro', extra: 1 }, { plan: 3 }, { plan: 'x'.repeat(100_000) }]
  ) {
    const res = await asPerson(app, tenant, { id: tenant.owner.id }, { method: 'POST', url: '/v1/billing/subscription/change', payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 40))
    t.equal(res.json().code, 'invalid_request')
  }
})

t.test('invoices page and filter by updatedSince; dates outside 1970-9999 are refused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'free' })
  for (const plan of ['growth', 'pro', 'free']) await change(app, tenant, plan)
  const page = (await call(app, { method: 'GET', url: '/v1/billing/invoices?limit=2&page=2', key: tenant.key, store: tenant.storeId }))
    .json()
  t.match(page.meta, { total: 3, page: 2, limit: 2, totalPages: 2 })
  t.equal(page.data.length, 1)
  const future = await call(app, {
    method: 'GET',
    url: '/v1/billing/invoices?updatedSince=2999-01-01T00:00:00Z',
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(future.json().meta.total, 0)
  for (const bad of ['0000-01-01T00:00:00Z', '10000-01-01T00:00:00Z', 'yesterday']) {
    const res = await call(app, { method: 'GET', url: `/v1/billing/invoices?updatedSince=${bad}`, key: tenant.key, store: tenant.storeId })
    t.equal(res.statusCode, 400, bad)
  }
})

t.test('one organization cannot read or change another\'s subscription', async (t) => {
  const app = await sharedApp()
  const [a, b] = [await makeTenant(app), await makeTenant(app)]
  await change(app, b, 'pro')
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/billing/invoices', key: a.key, store: b.storeId })).json().code,
    'store_env_not_found'
  )
  t.equal(
    (await asPerson(app, a, { id: a.owner.id }, {
      method: 'POST',
      url: '/v1/billing/subscription/change',
      store: b.storeId,
      payload: { plan: 'free' }
    })).json().code,
    'store_env_not_found'
  )
  t.equal((await call(app, { method: 'GET', url: '/v1/billing/invoices', key: a.key, store: a.storeId })).json().meta.total, 0)
  t.equal((await app.db('store_envs').where({ id: b.storeId }).first()).plan, 'pro')
})
