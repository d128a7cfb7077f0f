import t from 'tap'
import { createHmac } from 'node:crypto'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeKey, makeStore, makeTenant } from '../factories.js'
import { appendEvent, deliverUntil, receiver, testWorker } from '../webhooks/support.js'

t.test('a subscribed hook receives a signed delivery in the polling item shape, and nothing after unsubscribing', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const rx = await receiver(t)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: rx.url, event: 'review.created' }
  })
  t.equal(res.statusCode, 201)
  const hook = res.json()
  t.match(hook, { id: /^hook_/, targetUrl: rx.url, event: 'review.created', createdAt: String, secret: /^whsec_/ })

  await appendEvent(app, tenant, 'review.published', { reviewId: 'rev_0' })
  const event = await appendEvent(app, tenant, 'review.created', { reviewId: 'rev_1', rating: 5 })
  const worker = testWorker(t, app, [tenant.storeId])
  await deliverUntil(worker, rx.received, 1)
  t.equal(rx.received.length, 1, 'only the subscribed event')
  const { headers, body } = rx.received[0]
  t.same(JSON.parse(body), { id: event.id, type: 'review.created', createdAt: event.createdAt, reviewId: 'rev_1', rating: 5 })
  const ts = Math.floor(clock() / 1000)
  t.equal(headers['x-service-signature-v2'], `t=${ts},v1=${createHmac('sha256', hook.secret).update(`${ts}.${body}`).digest('hex')}`)
  t.equal(headers['x-service-signature'], createHmac('sha256', hook.secret).update(body).digest('hex'))

  const del = await call(app, { method: 'DELETE', url: `/v1/connectors/hooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(del.statusCode, 204)
  await appendEvent(app, tenant, 'review.created', { reviewId: 'rev_2' })
  await worker.runOnce()
  t.equal(rx.received.length, 1, 'nothing after unsubscribing')
  const gone = await call(app, { method: 'GET', url: `/v1/connectors/hooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(gone.statusCode, 404)
})

t.test('a 410 from the target removes the hook', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const rx = await receiver(t, () => 410)
  const hook = (await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: rx.url, event: 'order.upserted' }
  })).json()
  await appendEvent(app, tenant, 'order.upserted', { platformOrderId: 'A1' })
  const worker = testWorker(t, app, [tenant.storeId])
  await worker.runOnce()
  const got = await call(app, { method: 'GET', url: `/v1/connectors/hooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
  t.equal(got.statusCode, 404)
  await appendEvent(app, tenant, 'order.upserted', { platformOrderId: 'A2' })
  await worker.runOnce()
  t.equal(rx.received.length, 1)
})

t.test('deleting a hook twice answers 204 both times; an id the store never had is 404', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const hook = (await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: 'http://127.0.0.1:9/z', event: 'product.upserted' }
  })).json()
  for (let i = 0; i < 2; i++) {
    const res = await call(app, { method: 'DELETE', url: `/v1/connectors/hooks/${hook.id}`, key: tenant.key, store: tenant.storeId })
    t.equal(res.statusCode, 204)
  }
  const unknown = await call(app, {
    method: 'DELETE',
    url: '/v1/connectors/hooks/hook_doesnotexist',
    key: tenant.key,
    store: tenant.storeId
  })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().code, 'not_found')
})

t.test('hooks are listed per store and filtered by targetUrl', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (
    const [targetUrl, event] of [['http://127.0.0.1:9/a', 'review.created'], ['http://127.0.0.1:9/b', 'review.created'], [
      'http://127.0.0.1:9/a',
      'order.upserted'
    ]]
  ) {
    await call(app, { method: 'POST', url: '/v1/connectors/hooks', key: tenant.key, store: tenant.storeId, payload: { targetUrl, event } })
  }
  const all = await call(app, { method: 'GET', url: '/v1/connectors/hooks', key: tenant.key, store: tenant.storeId })
  t.equal(all.json().meta.total, 3)
  t.notOk(all.body.includes('whsec_'), 'no secrets in the list')
  const a = await call(app, {
    method: 'GET',
    url: `/v1/connectors/hooks?targetUrl=${encodeURIComponent('http://127.0.0.1:9/a')}`,
    key: tenant.key,
    store: tenant.storeId
  })
  t.same(a.json().data.map((h: { event: string }) => h.event).sort(), ['order.upserted', 'review.created'])
})

t.test('a hook only receives events of its own store, and other stores cannot see or delete it', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app)
  const sibling = await makeStore(app, tenant)
  const other = await makeTenant(app)
  const rx = await receiver(t)
  const hook = (await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: rx.url, event: 'review.created' }
  })).json()
  await appendEvent(app, { orgId: tenant.orgId, storeId: sibling }, 'review.created')
  await appendEvent(app, other, 'review.created')
  const mine = await appendEvent(app, tenant, 'review.created')
  await testWorker(t, app, [tenant.storeId, sibling, other.storeId]).runOnce()
  t.same(rx.bodies().map((b) => b.id), [mine.id])

  for (const [key, store] of [[tenant.key, sibling], [other.key, other.storeId]]) {
    t.equal((await call(app, { method: 'GET', url: `/v1/connectors/hooks/${hook.id}`, key, store })).statusCode, 404)
    t.equal((await call(app, { method: 'DELETE', url: `/v1/connectors/hooks/${hook.id}`, key, store })).statusCode, 404)
  }
  t.equal(
    (await call(app, { method: 'GET', url: `/v1/connectors/hooks/${hook.id}`, key: tenant.key, store: tenant.storeId })).statusCode,
    200
  )
})

t.test('subscribing needs read scope on the event\'s resource', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const payload = { targetUrl: 'http://127.0.0.1:9/s', event: 'review.created' }
  const noRead = await makeKey(app, tenant, 'editor', ['connectors:write', 'webhooks:write', 'orders:read'])
  const r1 = await call(app, { method: 'POST', url: '/v1/connectors/hooks', key: noRead.secret, store: tenant.storeId, payload })
  t.match(r1.json(), { code: 'insufficient_scope', message: /reviews/ })
  const loyalty = await makeKey(app, tenant, 'editor', ['webhooks:write', 'loyalty:read'])
  const r2 = await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: loyalty.secret,
    store: tenant.storeId,
    payload: { ...payload, event: 'loyalty.birthday_reward' }
  })
  t.equal(r2.statusCode, 201)
})

t.test('webhooks:write (the documented scope) or connectors:write, either one, is enough to subscribe and unsubscribe', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const scope of ['webhooks:write', 'connectors:write']) {
    const key = await makeKey(app, tenant, 'editor', ['reviews:read', scope])
    const created = await call(app, {
      method: 'POST',
      url: '/v1/connectors/hooks',
      key: key.secret,
      store: tenant.storeId,
      payload: { targetUrl: 'http://127.0.0.1:9/s', event: 'review.created' }
    })
    t.equal(created.statusCode, 201, scope)
    const deleted = await call(app, {
      method: 'DELETE',
      url: `/v1/connectors/hooks/${created.json().id}`,
      key: key.secret,
      store: tenant.storeId
    })
    t.equal(deleted.statusCode, 204, scope)
  }
})

t.test('without webhooks:write or connectors:write a hook can be neither subscribed nor unsubscribed', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const hook = (await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: 'http://127.0.0.1:9/s', event: 'review.created' }
  })).json()
  const key = await makeKey(app, tenant, 'editor', ['reviews:write', 'outbound-webhooks:write'])
  const created = await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: key.secret,
    store: tenant.storeId,
    payload: { targetUrl: 'http://127.0.0.1:9/s', event: 'review.created' }
  })
  t.match(created.json(), { code: 'insufficient_scope', message: /webhooks/ })
  const deleted = await call(app, { method: 'DELETE', url: `/v1/connectors/hooks/${hook.id}`, key: key.secret, store: tenant.storeId })
  t.equal(deleted.json().code, 'insufficient_scope')
  t.equal(
    (await call(app, { method: 'GET', url: `/v1/connectors/hooks/${hook.id}`, key: tenant.key, store: tenant.storeId })).statusCode,
    200,
    'still there'
  )
})

t.test('reading hooks needs webhooks:read or connectors:read, either one', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const hook = (await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: 'http://127.0.0.1:9/s', event: 'review.created' }
  })).json()
  for (const scopes of [['webhooks:read'], ['connectors:read'], ['webhooks:write']]) {
    const key = await makeKey(app, tenant, 'viewer', scopes)
    t.equal(
      (await call(app, { method: 'GET', url: '/v1/connectors/hooks', key: key.secret, store: tenant.storeId })).json().meta.total,
      1,
      scopes.join()
    )
    t.equal(
      (await call(app, { method: 'GET', url: `/v1/connectors/hooks/${hook.id}`, key: key.secret, store: tenant.storeId })).statusCode,
      200,
      scopes.join()
    )
  }
  const neither = await makeKey(app, tenant, 'viewer', ['reviews:read'])
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/connectors/hooks', key: neither.secret, store: tenant.storeId })).json().code,
    'insufficient_scope'
  )
  t.equal(
    (await call(app, { method: 'GET', url: `/v1/connectors/hooks/${hook.id}`, key: neither.secret, store: tenant.storeId })).json().code,
    'insufficient_scope'
  )
})

t.test('a viewer key cannot subscribe a hook whatever its scopes', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const key = await makeKey(app, tenant, 'viewer', ['reviews:read', 'webhooks:write'])
  const res = await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: key.secret,
    store: tenant.storeId,
    payload: { targetUrl: 'http://127.0.0.1:9/s', event: 'review.created' }
  })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'role_read_only')
})

t.test('hooks need the growth plan and a known event type', async (t) => {
  const app = await sharedApp()
  const free = await makeTenant(app, { plan: 'free' })
  const res = await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: free.key,
    store: free.storeId,
    payload: { targetUrl: 'http://127.0.0.1:9/', event: 'review.created' }
  })
  t.equal(res.json().code, 'plan_required')
  const tenant = await makeTenant(app)
  const bad = await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: 'http://127.0.0.1:9/', event: 'review.exploded' }
  })
  t.equal(bad.json().code, 'invalid_event_type')
})

t.test('a hook is unsubscribed with 204 after the store moves to a plan without hooks, and then receives nothing', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app, { plan: 'growth' })
  const rx = await receiver(t)
  const hook = (await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: rx.url, event: 'review.created' }
  })).json()
  await app.services.bootstrap.setPlan({ store: tenant.storeId, plan: 'free' })
  t.equal(
    (await call(app, { method: 'DELETE', url: `/v1/connectors/hooks/${hook.id}`, key: tenant.key, store: tenant.storeId })).statusCode,
    204
  )
  await appendEvent(app, tenant, 'review.created', { id: 'rev_1', rating: 4 })
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  t.equal(rx.received.length, 0)
})

t.test('a hook of a store that moved to a plan without hooks is sent nothing more, and its queued deliveries are cancelled', async (t) => {
  const app = await build(t, { clock: manualClock() })
  const tenant = await makeTenant(app, { plan: 'growth' })
  const rx = await receiver(t)
  await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: rx.url, event: 'review.created' }
  })
  await appendEvent(app, tenant, 'review.created', { id: 'rev_1', rating: 4 })
  await app.services.bootstrap.setPlan({ store: tenant.storeId, plan: 'free' })
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  t.equal(rx.received.length, 0)
  const [delivery] = await app.db('webhook_deliveries').where({ store_env_id: tenant.storeId })
  t.equal(delivery.status, 'cancelled')
})
