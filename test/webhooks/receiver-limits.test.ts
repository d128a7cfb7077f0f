import t from 'tap'
import { base62 } from '../../src/lib/ids.js'
import { build, onMysql } from '../helper.js'
import { makeTenant } from '../factories.js'
import { appendEvent, createWebhook, receiver, testWorker } from './support.js'

/** A receiver that holds each request 40 ms and notes the most requests it had open at once. */
async function slowReceiver (t: Parameters<typeof receiver>[0]) {
  let open = 0
  let most = 0
  const rx = await receiver(t, async () => {
    most = Math.max(most, ++open)
    await new Promise((resolve) => setTimeout(resolve, 40))
    open--
    return 200
  })
  return { ...rx, most: () => most }
}

t.test('one receiver never has more requests open than its concurrency, and does have that many', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const rx = await slowReceiver(t)
  await createWebhook(app, tenant, rx.url)
  for (let i = 0; i < 30; i++) await appendEvent(app, tenant, 'loyalty.referral_reward', { i })
  const worker = testWorker(t, app, [tenant.storeId], { perReceiverConcurrency: 4 })
  worker.start()
  await rx.waitFor(30)
  await worker.stop()
  t.equal(rx.most(), 4)
})

t.test('two instances together hold a receiver to its concurrency', { skip: onMysql ? false : 'instances share the limit through Redis' }, async (t) => {
  const redisPrefix = `eh:test:${base62(10)}:`
  const app = await build(t, { redisPrefix })
  const second = await build(t, { redisPrefix })
  const tenant = await makeTenant(app)
  const rx = await slowReceiver(t)
  await createWebhook(app, tenant, rx.url)
  for (let i = 0; i < 40; i++) await appendEvent(app, tenant, 'loyalty.referral_reward', { i })
  const a = testWorker(t, app, [tenant.storeId], { perReceiverConcurrency: 3, batchSize: 5 })
  const b = testWorker(t, second, [tenant.storeId], { perReceiverConcurrency: 3, batchSize: 5 })
  a.start()
  b.start()
  await rx.waitFor(40)
  await Promise.all([a.stop(), b.stop()])
  t.ok(a.stats.attempted > 0 && b.stats.attempted > 0, `both instances sent (${a.stats.attempted} and ${b.stats.attempted})`)
  t.ok(rx.most() <= 3, `at most 3 open at once (saw ${rx.most()})`)
})
