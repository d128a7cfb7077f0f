import t from 'tap'
import { build, onMysql } from '../helper.js'
import { makeTenant } from '../factories.js'
import { appendEvent, createWebhook, receiver, testWorker, twoInstancesWithWebhook } from './support.js'

/** A receiver's answer that holds each request 40 ms, noting the most requests it had open at once. */
function holdOpen () {
  let open = 0
  let most = 0
  return {
    async respond () {
      most = Math.max(most, ++open)
      await new Promise((resolve) => setTimeout(resolve, 40))
      open--
      return 200
    },
    most: () => most
  }
}

t.test('one receiver never has more requests open than its concurrency, and does have that many', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const slow = holdOpen()
  const rx = await receiver(t, slow.respond)
  await createWebhook(app, tenant, rx.url)
  for (let i = 0; i < 30; i++) await appendEvent(app, tenant, 'loyalty.referral_reward', { i })
  const worker = testWorker(t, app, [tenant.storeId], { perReceiverConcurrency: 4 })
  worker.start()
  await rx.waitFor(30)
  await worker.stop()
  t.equal(slow.most(), 4)
})

t.test(
  'two instances together hold a receiver to its concurrency',
  { skip: onMysql ? false : 'instances share the limit through Redis' },
  async (t) => {
    const slow = holdOpen()
    const { app, second, tenant, rx } = await twoInstancesWithWebhook(t, slow.respond)
    for (let i = 0; i < 40; i++) await appendEvent(app, tenant, 'loyalty.referral_reward', { i })
    const a = testWorker(t, app, [tenant.storeId], { perReceiverConcurrency: 3, batchSize: 5 })
    const b = testWorker(t, second, [tenant.storeId], { perReceiverConcurrency: 3, batchSize: 5 })
    a.start()
    b.start()
    await rx.waitFor(40)
    await Promise.all([a.stop(), b.stop()])
    t.ok(a.stats.attempted > 0 && b.stats.attempted > 0, `both instances sent (${a.stats.attempted} and ${b.stats.attempted})`)
    t.ok(slow.most() <= 3, `at most 3 open at once (saw ${slow.most()})`)
  }
)

t.test('a new concurrency setting takes effect for a receiver an earlier worker already limited', {
  skip: onMysql ? false : 'the limit outlives a worker only in Redis'
}, async (t) => {
  const slow = holdOpen()
  const { app, second, tenant, rx } = await twoInstancesWithWebhook(t, slow.respond)
  await appendEvent(app, tenant, 'loyalty.referral_reward', { i: 0 })
  await testWorker(t, app, [tenant.storeId], { perReceiverConcurrency: 2 }).runOnce()
  // Redeployed with a higher limit: the same receiver, the same shared Redis namespace.
  for (let i = 1; i <= 24; i++) await appendEvent(app, tenant, 'loyalty.referral_reward', { i })
  const worker = testWorker(t, second, [tenant.storeId], { perReceiverConcurrency: 6 })
  worker.start()
  await rx.waitFor(25)
  await worker.stop()
  t.equal(slow.most(), 6)
})
