import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { appendEvent, createWebhook, deliverUntil, receiver, testWorker } from '../webhooks/support.js'

const post = (app: FastifyInstance, tenant: Tenant, url: string, payload?: Record<string, unknown>) =>
  call(app, { method: 'POST', url, key: tenant.key, store: tenant.storeId, ...(payload === undefined ? {} : { payload }) })
const auditActions = async (app: FastifyInstance, tenant: Tenant) =>
  (await app.db('audit_log').where({ org_id: tenant.orgId }).orderBy('id')).map((row: { action: string }) => row.action)

t.test('a replay re-sends the stored events of [since, until) with their original ids', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const start = clock()
  const appended = []
  for (let i = 0; i < 4; i++) {
    appended.push(await appendEvent(app, tenant, i === 2 ? 'review.created' : 'loyalty.birthday_reward'))
    clock.advance(1000)
  }
  const rx = await receiver(t)
  const hook = await createWebhook(app, tenant, rx.url)
  const res = await post(app, tenant, `/v1/outbound-webhooks/${hook.id}/replay`, {
    since: new Date(start + 1000).toISOString(),
    until: new Date(start + 3000).toISOString()
  })
  t.equal(res.statusCode, 202)
  t.match(res.json(), { queued: 2, firstEventId: appended[1].id, lastEventId: appended[2].id })
  await testWorker(t, app, [tenant.storeId]).runOnce()
  t.same(rx.bodies().map((b) => b.id), [appended[1].id, appended[2].id], 'since is inclusive, until exclusive; ids unchanged')
  const typed = await post(app, tenant, `/v1/outbound-webhooks/${hook.id}/replay`, {
    since: new Date(start).toISOString(),
    types: ['review.created']
  })
  t.equal(typed.json().queued, 1, 'types narrows the range to those types')
  t.ok((await auditActions(app, tenant)).includes('outbound_webhook.replayed'))
})

t.test('a failed delivery is redelivered once the disabled webhook is enabled again', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  let up = false
  const rx = await receiver(t, () => (up ? 200 : 500))
  const hook = await createWebhook(app, tenant, rx.url)
  const event = await appendEvent(app, tenant)
  const worker = testWorker(t, app, [tenant.storeId])
  for (let i = 0; i < 11; i++) {
    await worker.runOnce()
    clock.advance(30 * 3_600_000)
  }
  const log =
    (await call(app, { method: 'GET', url: `/v1/outbound-webhooks/${hook.id}/deliveries`, key: tenant.key, store: tenant.storeId })).json()
  t.equal(log.data[0].status, 'failed')
  const deliveryId = log.data[0].deliveryId
  const refused = await post(app, tenant, `/v1/outbound-webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`)
  t.equal(refused.statusCode, 409, 'a disabled webhook is enabled first')
  const enabled = await post(app, tenant, `/v1/outbound-webhooks/${hook.id}/enable`)
  t.match(enabled.json(), { status: 'active', consecutiveFailures: 0 })
  up = true
  const again = await post(app, tenant, `/v1/outbound-webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`)
  t.equal(again.statusCode, 202)
  t.equal(again.json().eventId, event.id)
  const before = rx.received.length
  await deliverUntil(worker, rx.received, before + 1)
  t.equal(rx.received.length, before + 1)
  t.equal(rx.bodies().at(-1)!.id, event.id, 'the same event id, so the receiver can de-duplicate')
  t.same((await auditActions(app, tenant)).filter((a) => a.startsWith('outbound_webhook.')), [
    'outbound_webhook.enabled',
    'outbound_webhook.redelivered'
  ])
})

t.test('enabling an active webhook changes nothing and a retired one cannot be enabled', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const hook = await createWebhook(app, tenant, 'https://hooks.shop.example/in')
  const res = await post(app, tenant, `/v1/outbound-webhooks/${hook.id}/enable`)
  t.match(res.json(), { status: 'active' })
  t.notOk((await auditActions(app, tenant)).includes('outbound_webhook.enabled'))
  await call(app, { method: 'DELETE', url: `/v1/outbound-webhooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  const retired = await post(app, tenant, `/v1/outbound-webhooks/${hook.id}/enable`)
  t.equal(retired.statusCode, 409)
  t.equal(retired.json().code, 'conflict')
})

t.test('replay and redelivery refuse bad ranges, unknown types and unknown deliveries', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const hook = await createWebhook(app, tenant, 'https://hooks.shop.example/in')
  const url = `/v1/outbound-webhooks/${hook.id}/replay`
  const cases: Array<[Record<string, unknown>, number, string]> = [
    [{ since: '2026-11-20T10:00:00Z', until: '2026-11-20T09:00:00Z' }, 400, 'invalid_request'],
    [{ since: '2026-11-20T10:00:00Z', types: ['review.exploded'] }, 400, 'invalid_event_type'],
    [{ since: '0000-01-01T00:00:00Z' }, 400, 'invalid_request'],
    [{ since: '2026-11-20T10:00:00Z', extra: 1 }, 400, 'invalid_request']
  ]
  for (const [payload, status, code] of cases) {
    const res = await post(app, tenant, url, payload)
    t.equal(res.statusCode, status, JSON.stringify(payload))
    t.equal(res.json().code, code)
  }
  // Few calls: the key's limit is 10 a second.
  for (const id of ['dlv_999999999', 'att_1', 'dlv_' + '9'.repeat(40)]) {
    const res = await post(app, tenant, `/v1/outbound-webhooks/${hook.id}/deliveries/${id}/redeliver`)
    t.equal(res.statusCode, 404, id)
  }
})

t.test('another store cannot replay, redeliver or enable this store\'s webhook', async (t) => {
  const app = await sharedApp()
  const owner = await makeTenant(app)
  const other = await makeTenant(app)
  const hook = await createWebhook(app, owner, 'https://hooks.shop.example/in')
  for (
    const url of [
      `/v1/outbound-webhooks/${hook.id}/replay`,
      `/v1/outbound-webhooks/${hook.id}/enable`,
      `/v1/outbound-webhooks/${hook.id}/deliveries/dlv_1/redeliver`
    ]
  ) {
    const res = await post(app, other, url, url.endsWith('replay') ? { since: '2026-11-20T10:00:00Z' } : undefined)
    t.equal(res.statusCode, 404, url)
  }
})

t.test('a viewer key cannot replay', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const hook = await createWebhook(app, tenant, 'https://hooks.shop.example/in')
  const { makeKey } = await import('../factories.js')
  const viewer = await makeKey(app, tenant, 'viewer')
  const res = await call(app, {
    method: 'POST',
    url: `/v1/outbound-webhooks/${hook.id}/replay`,
    key: viewer.secret,
    store: tenant.storeId,
    payload: { since: '2026-11-20T10:00:00Z' }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_read_only')
})

t.test('the admin delivery log enables a disabled webhook, redelivers and replays, through the same audited operations', async (t) => {
  const app = await sharedApp()
  const { signedInOwner } = await import('../admin/agent.js')
  const { agent, tenant } = await signedInOwner(app)
  const hook = await createWebhook(app, tenant, 'https://hooks.shop.example/in')
  await app.db('webhook_subscriptions').where({ id: hook.id }).update({ status: 'disabled', status_reason: 'Failed for three days' })
  const page = await agent.get(`/admin/webhooks/${hook.id}/deliveries`)
  t.match(page.body, `action="/admin/webhooks/${hook.id}/enable"`)
  t.match(page.body, `action="/admin/webhooks/${hook.id}/replay"`)
  const enabled = await agent.post(`/admin/webhooks/${hook.id}/enable`)
  t.equal(enabled.statusCode, 303)
  t.equal((await app.db('webhook_subscriptions').where({ id: hook.id }).first()).status, 'active')
  await agent.get(`/admin/webhooks/${hook.id}/deliveries`)
  const replayed = await agent.post(`/admin/webhooks/${hook.id}/replay`, { since: '2026-01-01T00:00', until: '' })
  t.equal(replayed.statusCode, 303)
  const shown = await agent.get(`/admin/webhooks/${hook.id}/deliveries`)
  t.match(shown.body, /events from 2026-01-01T00:00:00.000Z/)
  const bad = await agent.post(`/admin/webhooks/${hook.id}/replay`, { since: 'soon' })
  t.equal(bad.statusCode, 303)
  t.match((await agent.get(`/admin/webhooks/${hook.id}/deliveries`)).body, /ISO 8601/)
  t.same((await auditActions(app, tenant)).filter((a) => a.startsWith('outbound_webhook.')), [
    'outbound_webhook.enabled',
    'outbound_webhook.replayed'
  ])
})
