import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { call, sharedApp } from '../helper.js'
import { makeStore, makeTenant } from '../factories.js'
import { appendEvent } from './support.js'

t.test('the event log pages oldest first with next_cursor, null at the end', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const appended = []
  for (let i = 0; i < 5; i++) appended.push(await appendEvent(app, tenant, 'loyalty.birthday_reward', { n: i }))
  const first = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events?limit=2', key: tenant.key, store: tenant.storeId })
  t.equal(first.statusCode, 200)
  t.same(first.json().events.map((e: { id: string }) => e.id), appended.slice(0, 2).map((e) => e.id))
  t.equal(first.json().next_cursor, appended[1].id)
  t.match(first.json().events[0], { type: 'loyalty.birthday_reward', storeEnvId: tenant.storeId, data: { n: 0 }, createdAt: String })

  const rest = await call(app, {
    method: 'GET',
    url: `/v1/outbound-webhooks/events?limit=3&since=${first.json().next_cursor}`,
    key: tenant.key,
    store: tenant.storeId
  })
  t.same(rest.json().events.map((e: { id: string }) => e.id), appended.slice(2).map((e) => e.id))
  t.equal(rest.json().next_cursor, null)
})

t.test('since takes the id of the last processed event and resumes after it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const a = await appendEvent(app, tenant)
  const b = await appendEvent(app, tenant)
  const res = await call(app, { method: 'GET', url: `/v1/outbound-webhooks/events?since=${a.id}`, key: tenant.key, store: tenant.storeId })
  t.same(res.json(), { events: [{ ...b, storeEnvId: tenant.storeId }], next_cursor: null })
})

t.test('a since that is not an event id is refused with invalid_request', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'GET',
    url: '/v1/outbound-webhooks/events?since=yesterday',
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_request')
})

t.test('a store reads only its own events', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const secondStore = await makeStore(app, tenant)
  await appendEvent(app, tenant)
  await appendEvent(app, { orgId: tenant.orgId, storeId: secondStore })
  const mine = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events', key: tenant.key, store: tenant.storeId })
  t.equal(mine.json().events.length, 1)
  const theirs = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events', key: other.key, store: other.storeId })
  t.same(theirs.json().events, [])
  const foreign = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events', key: other.key, store: tenant.storeId })
  t.equal(foreign.statusCode, 404)
})

t.test('the event log is readable on the free plan', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'free' })
  const res = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
})

t.test('a reader resuming from its last id while writers append concurrently misses nothing and sees nothing twice', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const writers = 6
  const perWriter = 15
  let writing = true
  const written: string[] = []
  const writer = async (w: number) => {
    for (let i = 0; i < perWriter; i++) {
      // Hold the transaction open after appending, so commits and id allocation interleave across writers.
      const event = await app.db.transaction(async (trx) => {
        const e = await app.events.append(trx, {
          orgId: tenant.orgId,
          storeEnvId: tenant.storeId,
          type: 'loyalty.referral_reward',
          data: { w, i }
        })
        await sleep(Math.floor(Math.random() * 15))
        return e
      })
      written.push(event.id)
    }
  }
  // The endpoint's query, polled as fast as it answers (HTTP would hit the caller's 10 requests/s budget).
  const log = app.services.eventHistory
  const seen: string[] = []
  const reader = async () => {
    let since = 0
    for (;;) {
      const done = !writing
      const events = await log.listAfter(tenant.storeId, since, 7)
      for (const e of events) seen.push(e.id)
      if (events.length > 0) since = Number(events[events.length - 1].id.slice(4))
      else if (done) return
    }
  }
  const readerDone = reader()
  await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)))
  writing = false
  await readerDone
  t.equal(seen.length, writers * perWriter, 'as many events read as written')
  t.equal(new Set(seen).size, seen.length, 'no event read twice')
  t.same([...seen].sort(), [...written].sort(), 'every written event read')
  const numeric = seen.map((id) => Number(id.slice(4)))
  t.ok(numeric.every((n, i) => i === 0 || n > numeric[i - 1]), 'read in increasing id order')
  const viaApi = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events?limit=100', key: tenant.key, store: tenant.storeId })
  t.same(viaApi.json().events.map((e: { id: string }) => e.id), seen, 'the endpoint walks the same sequence')
})
