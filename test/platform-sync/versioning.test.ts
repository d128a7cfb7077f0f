import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, manualClock, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { appendEvent, createWebhook, deliverUntil, receiver, testWorker } from '../webhooks/support.js'

const DAY = 24 * 3_600_000

t.test('GET /v1/changelog answers the policy, the deprecations and the changes, without credentials', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/changelog' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.version, 'v1')
  t.match(body.policy, /At least 90 days|at least 90 days/)
  t.match(body.deprecations, [{ surface: /x-service-signature/, sunsetOn: '2027-01-15' }])
  t.match(body.changes[0], { period: 'Nov 2026', kind: /^(added|changed|fixed|deprecated|removed)$/ })
  t.ok(
    body.changes.some((c: { kind: string, description: string }) =>
      c.kind === 'fixed' && c.description === 'review sort order uses the written date.'
    ),
    'a "Fixed:" label becomes the kind'
  )
  t.equal(body.pageUrl, `${app.config.publicUrl}/docs/versioning`)
})

t.test('the versioning page shows the same source as the JSON, as HTML', async (t) => {
  const app = await sharedApp()
  const page = await app.inject({ method: 'GET', url: '/docs/versioning' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  const json = (await app.inject({ method: 'GET', url: '/v1/changelog' })).json()
  t.match(page.body, '<h2 id="versioning-policy">Versioning policy</h2>')
  t.match(page.body, '<td>2027-01-15</td>')
  t.match(page.body, json.changes[json.changes.length - 1].description)
  t.notMatch(page.body, /<script/i)
})

t.test('the deprecation Link of a legacy-signed delivery resolves to the versioning page', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  await createWebhook(app, tenant, rx.url)
  await appendEvent(app, tenant)
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  const link = String(rx.received[0].headers.link)
  const target = /^<([^>]+)>; rel="deprecation"$/.exec(link)?.[1]
  t.ok(target?.startsWith(app.config.publicUrl), link)
  const page = await app.inject({ method: 'GET', url: target!.slice(app.config.publicUrl.length) })
  t.equal(page.statusCode, 200)
  t.match(page.body, /x-service-signature/)
})

async function deliverOne (app: FastifyInstance, tenant: Tenant, worker: ReturnType<typeof testWorker>, received: unknown[]) {
  const before = received.length
  await appendEvent(app, tenant)
  await deliverUntil(worker, received, before + 1)
}

const noticesTo = async (app: FastifyInstance, email: string) =>
  (await app.db('mail_outbox').where({ to: email }).select('subject', 'text')) as Array<{ subject: string, text: string }>

t.test('an owner whose organization keeps using a deprecated surface is mailed once a week, and not after use stops', async (t) => {
  const clock = manualClock(Date.parse('2026-11-23T12:00:00Z'))
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const quiet = await makeTenant(app)
  const rx = await receiver(t)
  await createWebhook(app, tenant, rx.url)
  const worker = testWorker(t, app, [tenant.storeId])
  await deliverOne(app, tenant, worker, rx.received)
  clock.advance(60_000)
  await app.services.deprecationNotices.runOnce()
  const [notice, ...more] = await noticesTo(app, tenant.owner.email)
  t.same(more, [])
  t.match(notice.subject, /15 January 2027/)
  t.match(notice.text, `${app.config.publicUrl}/docs/versioning`)
  // Still in use during the week: counted, not mailed again.
  for (let day = 1; day < 7; day++) {
    clock.advance(DAY)
    await deliverOne(app, tenant, worker, rx.received)
    await app.services.deprecationNotices.runOnce()
  }
  t.equal((await noticesTo(app, tenant.owner.email)).length, 1, 'one notice in the first week')
  clock.advance(DAY + 60_000)
  await deliverOne(app, tenant, worker, rx.received)
  await app.services.deprecationNotices.runOnce()
  t.equal((await noticesTo(app, tenant.owner.email)).length, 2, 'a week on, use continues: a second notice')
  const usage = await app.db('deprecation_usage').where({ org_id: tenant.orgId }).first()
  // A pass counts up to its own instant: the delivery made at that very instant is the next pass's.
  t.equal(Number(usage.uses), 7, 'every delivery counted once, across passes, per organization')
  clock.advance(8 * DAY)
  await app.services.deprecationNotices.runOnce()
  t.equal((await noticesTo(app, tenant.owner.email)).length, 2, 'no use in the past week: no notice')
  t.same(await noticesTo(app, quiet.owner.email), [], 'an organization that never used it hears nothing')
  t.notOk(await app.db('deprecation_usage').where({ org_id: quiet.orgId }).first())
})
