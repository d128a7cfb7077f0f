import t from 'tap'
import { call, onMysql, sharedApp } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { appendEvent } from '../webhooks/support.js'
import { CURSOR_INDEX } from '../../src/modules/events/events.repository.js'

/*
 * docs/contract/event-visibility.md#the-event-log: the event log is also served as GET /events and GET /events/:id
 * under `events`.
 */

t.test('GET /v1/events serves the same log as /v1/outbound-webhooks/events', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const appended = []
  for (let i = 0; i < 3; i++) appended.push(await appendEvent(app, tenant, 'review.created', { n: i }))
  const first = await call(app, { method: 'GET', url: '/v1/events?limit=2', key: tenant.key, store: tenant.storeId })
  t.equal(first.statusCode, 200)
  t.same(first.json().events.map((e: { id: string }) => e.id), appended.slice(0, 2).map((e) => e.id))
  t.equal(first.json().next_cursor, appended[1].id)
  const same = await call(app, { method: 'GET', url: '/v1/outbound-webhooks/events?limit=2', key: tenant.key, store: tenant.storeId })
  t.same(first.json(), same.json())
  const rest = await call(app, {
    method: 'GET',
    url: `/v1/events?since=${first.json().next_cursor}`,
    key: tenant.key,
    store: tenant.storeId
  })
  t.same(rest.json(), { events: [{ ...appended[2], storeEnvId: tenant.storeId }], next_cursor: null })
})

t.test('GET /v1/events/:id returns one event of the store', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const event = await appendEvent(app, tenant, 'product.upserted', { platformProductId: 'p-1' })
  const res = await call(app, { method: 'GET', url: `/v1/events/${event.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { ...event, storeEnvId: tenant.storeId })
})

t.test('GET /v1/events/:id is 404 for another store\'s event, an unknown id and an event the key may not read', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  // Ids count each store's events: the other store's second has an id this store has not given yet.
  await appendEvent(app, other, 'review.created')
  const theirs = await appendEvent(app, other, 'review.created')
  const order = await appendEvent(app, tenant, 'order.upserted', { customerEmail: 'a@example.test' })
  const reader = await makeKey(app, tenant, 'viewer', ['events:read', 'reviews:read'])
  for (const [key, id] of [[tenant.key, theirs.id], [tenant.key, 'evt_999999999'], [tenant.key, 'nope'], [reader.secret, order.id]]) {
    const res = await call(app, { method: 'GET', url: `/v1/events/${id}`, key, store: tenant.storeId })
    t.equal(res.statusCode, 404, id)
    t.equal(res.json().code, 'not_found', id)
  }
})

t.test('GET /v1/events needs events:read or outbound-webhooks:read, and filters by the event resources it may read', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await appendEvent(app, tenant, 'order.upserted', { customerEmail: 'a@example.test' })
  const review = await appendEvent(app, tenant, 'review.created')
  for (const scopes of [['events:read', 'reviews:read'], ['outbound-webhooks:read', 'reviews:read'], ['events:write', 'reviews:read']]) {
    const key = await makeKey(app, tenant, 'editor', scopes)
    const res = await call(app, { method: 'GET', url: '/v1/events', key: key.secret, store: tenant.storeId })
    t.equal(res.statusCode, 200, scopes.join())
    t.same(res.json().events.map((e: { id: string }) => e.id), [review.id], scopes.join())
  }
  const onlyReviews = await makeKey(app, tenant, 'viewer', ['reviews:read'])
  const refused = await call(app, { method: 'GET', url: '/v1/events', key: onlyReviews.secret, store: tenant.storeId })
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'insufficient_scope')
  const one = await call(app, { method: 'GET', url: `/v1/events/${review.id}`, key: onlyReviews.secret, store: tenant.storeId })
  t.equal(one.json().code, 'insufficient_scope')
})

t.test('the events routes are in the OpenAPI document', async (t) => {
  const app = await sharedApp()
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  for (const path of ['/v1/events', '/v1/events/{id}']) {
    const op = doc.paths[path]?.get
    t.ok(op?.summary, `${path} has a summary`)
    t.ok(op?.responses['200'] && op.responses['403'], `${path} documents 200 and 403`)
  }
})

/** With a million events per store, a cursor page must walk the log in id order and stop (bench/read-path.ts). */
t.test('an event page after a cursor is read from the (store_env_id, id) index without sorting', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const query = app.services.eventHistory.afterQuery(tenant.storeId, 500_000, 101, ['review.created', 'order.created']).toSQL().toNative()
  if (onMysql) {
    const [rows] = await app.db.raw(`EXPLAIN ${query.sql}`, query.bindings)
    t.equal(rows[0].key, CURSOR_INDEX)
    t.notMatch(String(rows[0].Extra), /filesort/i)
  } else {
    const rows = await app.db.raw(`EXPLAIN QUERY PLAN ${query.sql}`, query.bindings)
    const plan = rows.map((row: { detail: string }) => row.detail).join('\n')
    t.match(plan, new RegExp(`USING INDEX ${CURSOR_INDEX}`))
    t.notMatch(plan, /TEMP B-TREE/)
  }
})

t.test('the ids a batch append answers are the ids its events were stored under, while other stores append at once', async (t) => {
  const app = await sharedApp()
  const tenants = await Promise.all([makeTenant(app), makeTenant(app), makeTenant(app)])
  const batches = await Promise.all(
    tenants.map((tenant, n) =>
      app.db.transaction((trx) =>
        app.events.appendMany(
          trx,
          tenant.storeId,
          tenant.orgId,
          Array.from({ length: 120 }, (_, i) => ({ type: 'product.upserted', data: { platformProductId: `p-${n}-${i}` } }))
        )
      )
    )
  )
  for (const [n, records] of batches.entries()) {
    const stored = await app.db('events').where({ store_env_id: tenants[n].storeId }).whereIn(
      'seq',
      records.map((r) => Number(r.id.slice(4)))
    ).orderBy('id')
      .select('seq', 'store_env_id', 'data')
    t.same(
      stored.map((
        row: { seq: number | string, store_env_id: string, data: string }
      ) => [`evt_${row.seq}`, row.store_env_id, JSON.parse(row.data).platformProductId]),
      records.map((r, i) => [r.id, tenants[n].storeId, `p-${n}-${i}`])
    )
  }
})
