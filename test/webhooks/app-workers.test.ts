import t from 'tap'
import { build, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { appendEvent, createWebhook, receiver } from './support.js'
import { DEFAULT_WORKER_OPTIONS } from '../../src/modules/delivery/worker.js'

t.test('with config.workers the app delivers by itself soon after the write commits, and stops on close', async (t) => {
  // A clock years back: this app's unrestricted worker finds only its own deliveries due, never other test files'.
  const clock = manualClock(Date.parse('2020-01-01T00:00:00Z'))
  const app = await build(t, { config: { workers: true }, clock })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  await createWebhook(app, tenant, rx.url)
  const event = await appendEvent(app, tenant, 'loyalty.referral_reward', { points: 10 })
  await rx.waitFor(1)
  t.equal(rx.bodies()[0].id, event.id)
  await app.close()

  // After close, an event written by another app (no workers) stays in the outbox: the closed app's worker is gone.
  const writer = await build(t, { clock })
  const later = await appendEvent(writer, tenant, 'loyalty.referral_reward', { points: 20 })
  await new Promise((resolve) => setTimeout(resolve, 3 * DEFAULT_WORKER_OPTIONS.pollMs))
  t.equal(rx.received.length, 1, 'nothing more was delivered')
  const pending = await writer.db('webhook_deliveries').where({ store_env_id: tenant.storeId, status: 'pending', attempts: 0 })
  t.equal(pending.length, 1, `the delivery of ${later.id} is still pending, never attempted`)
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
