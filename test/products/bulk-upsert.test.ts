import t from 'tap'
import { call, onMysql, sharedApp } from '../helper.js'
import { makeTenant, makeStore } from '../factories.js'
import { newId } from '../../src/lib/ids.js'
import { withDeadlockRetry } from '../../src/lib/bulk.js'
import { lockWaitOf } from '../lock-wait.js'

const put = (app: Parameters<typeof call>[0], tenant: { key: string, storeId: string }, products: unknown[]) =>
  call(app, { method: 'PUT', url: '/v1/products', key: tenant.key, store: tenant.storeId, payload: { products } })

const eventCount = async (app: Parameters<typeof call>[0], storeId: string, type: string) =>
  Number((await app.db('events').where({ store_env_id: storeId, type }).count({ n: '*' }))[0].n)

t.test('an upsert replaces the stored product: a field left out is cleared, not kept', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, [{
    platformProductId: 'p1',
    title: 'Mug',
    url: 'https://shop.example/mug',
    excludedFromReviewRequests: true,
    exclusionReason: 'gift card'
  }])
  const res = await put(app, tenant, [{ platformProductId: 'p1', title: 'Big mug' }])
  t.same(res.json(), { received: 1, upserted: 1, failed: 0, errors: [] })
  const got = (await call(app, { method: 'GET', url: '/v1/products/p1', key: tenant.key, store: tenant.storeId })).json()
  t.match(got, {
    platformProductId: 'p1',
    title: 'Big mug',
    url: null,
    imageUrl: null,
    excludedFromReviewRequests: false,
    exclusionReason: null
  })
})

t.test('re-sending an identical batch changes nothing and appends no event', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const batch = [
    { platformProductId: 'a', title: 'A', url: 'https://shop.example/a' },
    { platformProductId: 'b', title: 'B', excludedFromReviewRequests: true, exclusionReason: 'gift card' }
  ]
  await put(app, tenant, batch)
  const before = (await call(app, { method: 'GET', url: '/v1/products', key: tenant.key, store: tenant.storeId })).json()
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 2)
  const again = await put(app, tenant, batch)
  t.same(again.json(), { received: 2, upserted: 2, failed: 0, errors: [] })
  const after = (await call(app, { method: 'GET', url: '/v1/products', key: tenant.key, store: tenant.storeId })).json()
  t.same(after, before, 'same rows, same updatedAt')
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 2, 'no new event')
})

t.test('bad items are reported by index and the good items of the batch are stored', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, [
    { platformProductId: 'ok-1', title: 'One' },
    { title: 'no key' },
    { platformProductId: 'bad-url', url: 'not a url' },
    'not an object',
    { platformProductId: 'ok-1', title: 'repeat' },
    { platformProductId: 'extra', colour: 'red' },
    { platformProductId: 'ok-2' }
  ])
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.received, 7)
  t.equal(body.upserted, 2)
  t.equal(body.failed, 5)
  t.same(body.errors.map((e: { index: number, code: string }) => [e.index, e.code]), [
    [1, 'invalid_item'],
    [2, 'invalid_item'],
    [3, 'invalid_item'],
    [4, 'duplicate_item'],
    [5, 'invalid_item']
  ])
  t.equal(body.errors[1].platformId, 'bad-url')
  t.match(body.errors[1].message, /url/)
  const list = (await call(app, { method: 'GET', url: '/v1/products', key: tenant.key, store: tenant.storeId })).json()
  t.same(list.data.map((p: { platformProductId: string }) => p.platformProductId).sort(), ['ok-1', 'ok-2'])
  t.equal(list.data.find((p: { platformProductId: string }) => p.platformProductId === 'ok-1').title, 'One', 'the first occurrence wins')
})

t.test('each refused item names its index, its key when it has one, the field and the problem', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, [
    { title: 'no key' },
    { platformProductId: 'extra', colour: 'red' },
    { platformProductId: 'nested', categoryIds: ['a', 5] },
    'not an object',
    { platformProductId: 'typed', title: 5 },
    { platformProductId: 'lone-\uD800' },
    { platformProductId: 'ok' },
    { platformProductId: 'ok', title: 'again' }
  ])
  t.same(res.json(), {
    received: 8,
    upserted: 1,
    failed: 7,
    errors: [
      { index: 0, platformId: null, code: 'invalid_item', message: 'platformProductId: must have required property \'platformProductId\'' },
      { index: 1, platformId: 'extra', code: 'invalid_item', message: 'colour: must NOT have additional properties' },
      { index: 2, platformId: 'nested', code: 'invalid_item', message: 'categoryIds.1: must be string' },
      { index: 3, platformId: null, code: 'invalid_item', message: 'item: must be object' },
      { index: 4, platformId: 'typed', code: 'invalid_item', message: 'title: must be string' },
      {
        index: 5,
        platformId: 'lone-\uD800',
        code: 'invalid_item',
        message: 'platformProductId: must be valid Unicode text (it has a lone surrogate)'
      },
      { index: 7, platformId: 'ok', code: 'duplicate_item', message: 'platformProductId repeats item 6 of this batch' }
    ]
  })
})

t.test('errors are listed by index, whichever check refused the item', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, [{ platformProductId: 'unknown', categoryIds: ['cat_nope'] }, { title: 'no key' }])
  t.same(res.json().errors.map((e: { index: number, message: string }) => [e.index, e.message]), [
    [0, 'categoryIds: cat_nope is not a category of this store'],
    [1, 'platformProductId: must have required property \'platformProductId\'']
  ])
})

t.test('an item naming an unknown category is left out and the valid item after it is stored', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, [
    { platformProductId: 'bad-url', url: 'not a url' },
    { platformProductId: 'no-such-category', categoryIds: ['cat_nope'] },
    { platformProductId: 'valid', title: 'Kept' }
  ])
  t.same(res.json().errors.map((e: { index: number, code: string }) => [e.index, e.code]), [[0, 'invalid_item'], [1, 'invalid_item']])
  const get = async (id: string) =>
    (await call(app, { method: 'GET', url: `/v1/products/${id}`, key: tenant.key, store: tenant.storeId })).statusCode
  t.equal(await get('valid'), 200, 'the valid item is stored')
  t.equal(await get('no-such-category'), 404, 'the item naming an unknown category is not')
  t.equal(await get('bad-url'), 404)
})

t.test('a batch of 250 items is stored and 251 is refused whole with batch_too_large', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ platformProductId: `sku-${i}`, title: `Product ${i}` }))
  const ok = await put(app, tenant, items(250))
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), { received: 250, upserted: 250, failed: 0, errors: [] })
  const tooMany = await put(app, tenant, items(251).map((p) => ({ ...p, title: 'changed' })))
  t.equal(tooMany.statusCode, 400)
  t.equal(tooMany.json().code, 'batch_too_large')
  const list = (await call(app, { method: 'GET', url: '/v1/products?limit=100', key: tenant.key, store: tenant.storeId })).json()
  t.equal(list.meta.total, 250)
  t.notOk(list.data.some((p: { title: string }) => p.title === 'changed'), 'nothing of the refused batch was stored')
})

t.test('concurrent batches over the same ids leave one row per id and lose no item', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const batch = (tag: string, offset: number) =>
    Array.from({ length: 60 }, (_, i) => ({ platformProductId: `c-${(i + offset) % 80}`, title: tag }))
  const results = await Promise.all([
    put(app, tenant, batch('x', 0)),
    put(app, tenant, batch('y', 20)),
    put(app, tenant, batch('z', 40)),
    put(app, tenant, batch('w', 10))
  ])
  for (const res of results) t.same(res.json(), { received: 60, upserted: 60, failed: 0, errors: [] })
  const rows = await app.db('products').where({ store_env_id: tenant.storeId }).select('platform_product_id')
  t.equal(rows.length, 80, 'every id once')
  t.equal(new Set(rows.map((r: { platform_product_id: string }) => r.platform_product_id)).size, 80)
})

// MariaDB plans an IN list of more than 200 values from statistics and may walk the whole store instead of the
// unique index; as a locking read that waits on every row another writer of the store holds.
t.test('a batch of 250 ids does not wait for another writer holding a different product of the store', {
  skip: !onMysql && 'SQLite has one writer'
}, async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const ids = Array.from({ length: 250 }, (_, i) => `k-${String(i).padStart(3, '0')}`)
  await put(app, tenant, ids.map((id) => ({ platformProductId: id, title: 'v1' })))
  await put(app, tenant, [{ platformProductId: 'held', title: 'v1' }])
  const { id } = await app.db('products').where({ store_env_id: tenant.storeId, platform_product_id: 'held' }).first('id')
  const holder = await app.db.transaction()
  try {
    await holder('products').where({ id }).forUpdate()
    const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000).unref())
    const first = await Promise.race([
      put(app, tenant, ids.map((id) => ({ platformProductId: id, title: 'v2' }))).then((res) => res.statusCode),
      waited
    ])
    t.equal(first, 200, 'the batch finished while the other row stayed locked')
  } finally {
    await holder.rollback()
  }
})

t.test('a batch waits for another writer holding its product, then judges its item against what that writer stored', {
  skip: !onMysql && 'SQLite has one writer'
}, async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, [{ platformProductId: 'held', title: 'v1' }])
  const before = await eventCount(app, tenant.storeId, 'product.upserted')
  const { id } = await app.db('products').where({ store_env_id: tenant.storeId, platform_product_id: 'held' }).first('id')
  const holder = await app.db.transaction()
  let batch: ReturnType<typeof put> | null = null
  try {
    await holder('products').where({ id }).forUpdate()
    await holder('products').where({ id }).update({ title: 'v2' })
    batch = put(app, tenant, [{ platformProductId: 'held', title: 'v2' }])
    const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 1_000).unref())
    t.equal(await Promise.race([batch.then(() => 'finished' as const), waited]), 'waited', 'the batch waits while the row is held')
    await holder.commit()
  } finally {
    if (!holder.isCompleted()) await holder.rollback()
  }
  t.equal((await batch).statusCode, 200)
  // Read before the other writer committed, the item would look changed: stored again, with an event.
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), before, 'the item equals what the other writer stored: no event')
})

/** A category writer's transaction (categories.service.ts): the store's row held, a category inserted, not committed. */
async function holdStoreWithNewCategory (app: Parameters<typeof call>[0], tenant: { orgId: string, storeId: string }) {
  const holder = await app.db.transaction()
  await holder('store_envs').where({ id: tenant.storeId }).forUpdate().first('id')
  const categoryId = newId('cat')
  const now = Date.now()
  await holder('categories').insert({
    id: categoryId,
    org_id: tenant.orgId,
    store_env_id: tenant.storeId,
    name: 'Held',
    slug: 'held',
    parent_id: null,
    created_at: now,
    updated_at: now
  })
  return { holder, categoryId }
}

t.test('a batch naming categories waits for a writer holding the store, then admits the category it committed', {
  skip: !onMysql && 'SQLite has one writer'
}, async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { holder, categoryId } = await holdStoreWithNewCategory(app, tenant)
  let batch: ReturnType<typeof put> | null = null
  try {
    batch = put(app, tenant, [{ platformProductId: 'in-held', title: 'Cup', categoryIds: [categoryId] }])
    t.ok(await lockWaitOf(app, tenant.storeId, batch), 'the batch waits for the store')
    await holder.commit()
  } finally {
    if (!holder.isCompleted()) await holder.rollback()
  }
  // Without the wait, the category check would have run before the category was committed and refused the item.
  t.same((await batch).json(), { received: 1, upserted: 1, failed: 0, errors: [] })
})

t.test('a body without the products array is refused with invalid_request', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'PUT', url: '/v1/products', key: tenant.key, store: tenant.storeId, payload: { items: [] } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_request')
})

t.test('each changed product appends product.upserted with the public representation', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, [{ platformProductId: 'e1', title: 'Event' }])
  const event = await app.db('events').where({ store_env_id: tenant.storeId, type: 'product.upserted' }).first()
  t.match(JSON.parse(event.data), { platformProductId: 'e1', title: 'Event', excludedFromReviewRequests: false })
})

t.test('one store cannot read or change another store\'s products', async (t) => {
  const app = await sharedApp()
  const a = await makeTenant(app)
  const b = await makeTenant(app)
  await put(app, a, [{ platformProductId: 'shared', title: 'A title' }])
  await put(app, b, [{ platformProductId: 'shared', title: 'B title' }])
  const fromA = (await call(app, { method: 'GET', url: '/v1/products/shared', key: a.key, store: a.storeId })).json()
  t.equal(fromA.title, 'A title')
  const cross = await call(app, { method: 'GET', url: '/v1/products', key: a.key, store: b.storeId })
  t.equal(cross.statusCode, 404)
  t.equal(cross.json().code, 'store_env_not_found')
  const otherStore = await makeStore(app, a)
  const empty = (await call(app, { method: 'GET', url: '/v1/products', key: a.key, store: otherStore })).json()
  t.equal(empty.meta.total, 0)
})

const subscribe = (app: Parameters<typeof call>[0], tenant: { orgId: string, storeId: string }, events: string[]) =>
  app.db('webhook_subscriptions').insert({
    id: newId('whk'),
    org_id: tenant.orgId,
    store_env_id: tenant.storeId,
    kind: 'webhook',
    url: 'https://receiver.example/hook',
    events: JSON.stringify(events),
    secret_sealed: 'x',
    status: 'active',
    consecutive_failures: 0,
    created_at: Date.now()
  })

t.test('disjoint batches of one store written side by side are all stored, each item with one event and one delivery per subscription', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await subscribe(app, tenant, ['product.upserted'])
  await subscribe(app, tenant, ['*'])
  await subscribe(app, tenant, ['order.upserted'])
  const batch = (w: number) => Array.from({ length: 50 }, (_, i) => ({ platformProductId: `d-${i}-${w}`, title: `w${w}` }))
  const results = await Promise.all([0, 1, 2, 3, 4, 5].map((w) => put(app, tenant, batch(w))))
  for (const res of results) t.same(res.json(), { received: 50, upserted: 50, failed: 0, errors: [] })
  t.equal(Number((await app.db('products').where({ store_env_id: tenant.storeId }).count({ n: '*' }))[0].n), 300)
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 300)
  const deliveries = await app.db('webhook_deliveries').where({ store_env_id: tenant.storeId }).select('event_id', 'subscription_id')
  t.equal(deliveries.length, 600, 'two matching subscriptions, the order one gets nothing')
  t.equal(new Set(deliveries.map((d: { event_id: number, subscription_id: string }) => `${d.event_id}/${d.subscription_id}`)).size, 600)
})

t.test('writers racing over the same ids lose no item: the newest event of each product carries its stored values', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { plan: 'pro' })
  const batch = (tag: string, offset: number) =>
    Array.from({ length: 40 }, (_, i) => ({ platformProductId: `r-${(i + offset) % 50}`, title: tag }))
  for (let round = 0; round < 2; round++) {
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((tag, w) => put(app, tenant, batch(`${tag}${round}`, w * 7))))
    for (const res of results) t.equal(res.statusCode, 200)
  }
  const stored = await app.db('products').where({ store_env_id: tenant.storeId }).select('platform_product_id', 'title')
  t.equal(stored.length, 50)
  const events = await app.db('events').where({ store_env_id: tenant.storeId, type: 'product.upserted' }).orderBy('id').select('data')
  const newest = new Map<string, string>()
  for (const e of events) {
    const data = JSON.parse(e.data)
    newest.set(data.platformProductId, data.title)
  }
  for (const row of stored) {
    t.equal(newest.get(row.platform_product_id), row.title, `${row.platform_product_id}: the last event is the stored value`)
  }
})

t.test('a re-sent product with only its title changed is stored and appends an event', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, [{ platformProductId: 'r1', title: 'Mug' }])
  const res = await put(app, tenant, [{ platformProductId: 'r1', title: 'Big mug' }])
  t.same(res.json(), { received: 1, upserted: 1, failed: 0, errors: [] })
  const got = (await call(app, { method: 'GET', url: '/v1/products/r1', key: tenant.key, store: tenant.storeId })).json()
  t.equal(got.title, 'Big mug')
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 2)
})

t.test('a cleared field set to the text "null" counts as a change, not as the same value', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await put(app, tenant, [{ platformProductId: 'n1', title: 'Mug', exclusionReason: null }])
  const res = await put(app, tenant, [{ platformProductId: 'n1', title: 'Mug', exclusionReason: 'null' }])
  t.same(res.json(), { received: 1, upserted: 1, failed: 0, errors: [] })
  const got = (await call(app, { method: 'GET', url: '/v1/products/n1', key: tenant.key, store: tenant.storeId })).json()
  t.equal(got.exclusionReason, 'null')
  t.equal(await eventCount(app, tenant.storeId, 'product.upserted'), 2)
})

t.test('a batch whose every item is refused stores nothing and counts only the refused items', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await put(app, tenant, [{ title: 'no key' }, null])
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    received: 2,
    upserted: 0,
    failed: 2,
    errors: [
      { index: 0, platformId: null, code: 'invalid_item', message: 'platformProductId: must have required property \'platformProductId\'' },
      { index: 1, platformId: null, code: 'invalid_item', message: 'item: must be object' }
    ]
  })
})

t.test('a body without the products array is refused, naming the array', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, { method: 'PUT', url: '/v1/products', key: tenant.key, store: tenant.storeId, payload: {} })
  t.equal(res.statusCode, 400)
  t.same(res.json().errors, [{ path: 'products', message: 'must be an array' }])
})

t.test('a body that is not an object is refused as such', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const body of ['null', '[]', '"products"', '7']) {
    const res = await call(app, {
      method: 'PUT',
      url: '/v1/products',
      key: tenant.key,
      store: tenant.storeId,
      payload: body,
      headers: { 'content-type': 'application/json' }
    })
    t.equal(res.statusCode, 400, body)
    t.same(res.json().errors, [{ path: '', message: 'must be an object' }], body)
  }
})

t.test('a body or query naming a field the route does not declare is refused, naming the field', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const body = await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [], colour: 'red' }
  })
  t.equal(body.statusCode, 400)
  t.same(body.json().errors, [{ path: 'colour', message: 'is not a known field' }])
  const query = await call(app, {
    method: 'PUT',
    url: '/v1/products?colour=red',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [] }
  })
  t.equal(query.statusCode, 400)
  t.same(query.json().errors, [{ path: 'querystring.colour', message: 'is not a known field' }])
})

const lostRace = (code: string) => Object.assign(new Error('lost a lock race'), { code })

t.test('a transaction that lost a lock race is run again, whichever database reported it', async (t) => {
  for (const code of ['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']) {
    let runs = 0
    const result = await withDeadlockRetry(async () => {
      if (++runs < 3) throw lostRace(code)
      return 'stored'
    })
    t.same([result, runs], ['stored', 3], code)
  }
})

t.test('a transaction that keeps losing lock races is given up after five attempts, with the last error', async (t) => {
  let runs = 0
  await t.rejects(withDeadlockRetry(async () => { runs++; throw lostRace('ER_LOCK_DEADLOCK') }), { code: 'ER_LOCK_DEADLOCK' })
  t.equal(runs, 5)
})

t.test('a transaction that failed for another reason is not run again', async (t) => {
  let runs = 0
  await t.rejects(withDeadlockRetry(async () => { runs++; throw lostRace('ER_DUP_ENTRY') }), { code: 'ER_DUP_ENTRY' })
  t.equal(runs, 1)
})
