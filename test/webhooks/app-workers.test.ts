import t from 'tap'
import { build, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { appendEvent, createWebhook, receiver } from './support.js'

t.test('with config.workers the app delivers by itself soon after the write commits, and stops on close', async (t) => {
  // A clock years back: this app's unrestricted worker finds only its own deliveries due, never other test files'.
  const app = await build(t, { config: { workers: true }, clock: manualClock(Date.parse('2020-01-01T00:00:00Z')) })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  await createWebhook(app, tenant, rx.url)
  const event = await appendEvent(app, tenant, 'loyalty.referral_reward', { points: 10 })
  await rx.waitFor(1)
  t.equal(rx.bodies()[0].id, event.id)
  await app.close()
  t.pass('closed with its worker')
})

t.test('a rolled-back write leaves nothing in the outbox', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  await createWebhook(app, tenant, 'http://127.0.0.1:9/')
  await t.rejects(app.db.transaction(async (trx) => {
    await app.events.append(trx, { orgId: tenant.orgId, storeEnvId: tenant.storeId, type: 'loyalty.birthday_reward', data: {} })
    throw new Error('the domain write failed')
  }))
  const rows = await app.db('webhook_deliveries').where({ store_env_id: tenant.storeId })
  t.equal(rows.length, 0)
})
