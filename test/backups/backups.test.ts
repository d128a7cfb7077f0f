import t from 'tap'
import { createHash } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, onMysql, sharedApp } from '../helper.js'
import { addMember, makeKey, makeStore, makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { tickingClock } from '../content/app.js'
import { formData, JPEG } from '../content/multipart.js'
import { EXCLUDED_TABLES, EXPORTED_TABLES, refsOf, STORE, TENANT_COLUMNS, type ExportedTable } from '../../src/modules/backups/tables.js'
import { STALE_AFTER_MS } from '../../src/modules/backups/backups.service.js'
import { as, completedBackup } from './backup-app.js'

async function tablesWithStoreId (app: FastifyInstance): Promise<string[]> {
  const db = app.services.db
  if (onMysql) {
    const [rows] = await db.raw(
      'SELECT TABLE_NAME AS t FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND COLUMN_NAME = \'store_env_id\''
    )
    return (rows as Array<{ t: string }>).map((r) => r.t).sort()
  }
  const tables = (await db.raw("SELECT name FROM sqlite_master WHERE type = 'table'")) as Array<{ name: string }>
  const out: string[] = []
  for (const { name } of tables) {
    const columns = (await db.raw(`PRAGMA table_info(${JSON.stringify(name)})`)) as Array<{ name: string }>
    if (columns.some((c) => c.name === 'store_env_id')) out.push(name)
  }
  return out.sort()
}

t.test('every table with a store_env_id column is either exported or excluded with a reason', async (t) => {
  const app = await sharedApp()
  const exported = new Set(EXPORTED_TABLES.map((spec) => spec.table))
  for (const table of await tablesWithStoreId(app)) {
    t.ok(exported.has(table) || (EXCLUDED_TABLES[table] ?? '').length > 10, `${table} is exported or excluded with a reason`)
    t.notOk(exported.has(table) && table in EXCLUDED_TABLES, `${table} is not in both lists`)
  }
})

/** Products, orders with review requests, imported and storefront reviews, votes, and a webhook (with its secret). */
async function seedStore (app: FastifyInstance, tenant: Tenant) {
  const api = as(app, tenant)
  await api('PUT', '/v1/products', {
    products: [{ platformProductId: 'p1', title: 'Shirt' }, {
      platformProductId: 'gift',
      excludedFromReviewRequests: true,
      exclusionReason: 'Gift card'
    }]
  })
  await api('PUT', '/v1/orders', {
    orders: [
      {
        platformOrderId: 'o1',
        customerEmail: 'ann@example.test',
        total: 10.5,
        currency: 'EUR',
        fulfilledAt: '2026-11-01T00:00:00Z',
        lineItems: [{ platformProductId: 'p1', quantity: 2 }]
      },
      {
        platformOrderId: 'o2',
        customerEmail: 'bo@example.test',
        fulfilledAt: '2026-11-01T00:00:00Z',
        lineItems: [{ platformProductId: 'gift', quantity: 1 }]
      }
    ]
  })
  await api('POST', '/v1/imports', {
    type: 'reviews',
    items: [{
      productId: 'p1',
      orderId: 'o1',
      rating: 5,
      body: 'Great',
      authorName: 'Ann',
      authorEmail: 'ann@example.test',
      writtenAt: '2025-05-01T00:00:00Z'
    }, { productId: 'p1', rating: 2, body: 'Meh', authorName: 'Cy', writtenAt: '2025-06-01T00:00:00Z', status: 'pending' }]
  })
  const published = (await api('GET', '/v1/reviews?status=published')).json().data[0].id
  await storefront(app, { url: `/v1/reviews/${published}/helpful`, store: tenant.storeId, ip: '198.51.100.9' })
  await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    payload: { productId: 'p1', rating: 4, body: 'Nice 😀', authorName: 'Dee', authorEmail: 'dee@example.test' }
  })
  const hook = await api('POST', '/v1/outbound-webhooks', { url: 'https://receiver.example/hook', events: ['*'] })
  return { webhookSecret: hook.json().secret as string }
}

/** Rows and ids a restore gives new values: the tenant ids, and dropped or renewed ids. */
const renewed = (spec: ExportedTable) => [...TENANT_COLUMNS, ...(spec.drop ?? []), ...Object.keys(spec.newIds ?? {})]
const without = (row: Record<string, unknown>, columns: string[]) =>
  Object.fromEntries(Object.entries(row).filter(([k]) => !columns.includes(k)).sort())

/**
 * Every exported table's rows of one store as a backup compares them: without tenant ids and renewed ids, and each
 * reference replaced by what the row it names holds. A reference that did not follow the new ids names no row of
 * the store (or another row), so the stores differ.
 */
async function comparable (app: FastifyInstance, storeId: string) {
  const rows: Record<string, Array<Record<string, unknown>>> = {}
  for (const spec of EXPORTED_TABLES) rows[spec.table] = await app.services.db(spec.table).where({ store_env_id: storeId })
  const held = new Map<string, Map<unknown, string>>([[STORE, new Map([[storeId, 'the store']])]])
  for (const spec of EXPORTED_TABLES.filter((s) => s.newIds)) {
    const ignored = [...renewed(spec), ...Object.keys(spec.refs ?? {})]
    held.set(spec.table, new Map(rows[spec.table].map((row) => [row.id, JSON.stringify(without(row, ignored))])))
  }
  const named = (table: string, id: unknown) => held.get(table)?.get(id) ?? id
  const followed = (spec: ExportedTable, row: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(spec.refs ?? {}).map(([column, refs]) => {
        const ref = refsOf(refs).find((r) => Object.entries(r.when ?? {}).every(([k, v]) => row[k] === v))
        const value = row[column]
        if (!ref || value == null) return [column, value]
        if (!ref.json) return [column, named(ref.table, value)]
        const doc = JSON.parse(String(value))
        if (ref.json === '[].id') {
          return [
            column,
            (doc as Array<{ id: string }>).map((item) =>
              JSON.parse(JSON.stringify(item).split(item.id).join(named(ref.table, item.id) as string))
            )
          ]
        }
        return [
          column,
          ref.json === '[]'
            ? (doc as unknown[]).map((id) => named(ref.table, id)).sort()
            : { ...doc, [ref.json]: named(ref.table, doc[ref.json]) }
        ]
      })
    )
  const out: Record<string, string[]> = {}
  for (const spec of EXPORTED_TABLES) {
    out[spec.table] = rows[spec.table].map((row) => JSON.stringify({ ...without(row, renewed(spec)), ...followed(spec, row) })).sort()
  }
  return out
}

/** The source store's id and its rows' global ids, wherever they occur in the target's exported rows (JSON included). */
async function sourceIdsIn (app: FastifyInstance, source: string, target: string): Promise<string[]> {
  const db = app.services.db
  const ids = [source]
  for (const spec of EXPORTED_TABLES) {
    for (const column of Object.keys(spec.newIds ?? {})) ids.push(...await db(spec.table).where({ store_env_id: source }).pluck(column))
  }
  const found: string[] = []
  for (const spec of EXPORTED_TABLES) {
    const text = JSON.stringify(await db(spec.table).where({ store_env_id: target }))
    found.push(...ids.filter((id) => text.includes(id)).map((id) => `${spec.table}: ${id}`))
  }
  return found
}

const PAGE = 'https://shop.example/products/shirt'

/**
 * Every kind of store data beside the catalog, through the API: customers the orders link to, loyalty (settings, an
 * API transaction, order points, a completed referral, a review reward), incentives (points, and a coupon pool),
 * affiliates with a referral, email settings and an active sequence the orders follow, and content (a category tree
 * a product and an FAQ are in, a gallery with a photo, a favourite and a lead, a web page with placements).
 */
async function seedEverything (app: FastifyInstance, tenant: Tenant) {
  const api = async (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, payload?: object) => {
    const res = await as(app, tenant)(method, url, payload)
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  const visitor = async (url: string, options: { payload?: object, headers?: Record<string, string>, ip?: string }) => {
    const res = await storefront(app, { url, store: tenant.storeId, ...options } as Parameters<typeof storefront>[1])
    if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  await api('PUT', '/v1/customers', {
    customers: [{ platformCustomerId: 'ann', email: 'ann@example.test', firstName: 'Ann', birthday: { month: 5, day: 1 } }, {
      platformCustomerId: 'bo',
      email: 'bo@example.test'
    }, { platformCustomerId: 'sam', email: 'sam@example.test' }]
  })
  const customers = Object.fromEntries((await api('GET', '/v1/customers')).data.map((c: { email: string, id: string }) => [c.email, c.id]))
  await api('PUT', '/v1/loyalty/settings', {
    pointsPerUnit: 1,
    birthdayReward: { points: 0 },
    referralReward: { referrerPoints: 500, refereePoints: 250 }
  })
  await api('POST', '/v1/loyalty/referrals', { referrerCustomerId: customers['ann@example.test'], refereeEmail: 'sam@example.test' })
  await api('POST', '/v1/email-sequences', {
    name: 'Two touches',
    active: true,
    steps: [{ delayHours: 24, templateKey: 'review_request' }, { delayHours: 48, templateKey: 'review_reminder', stopWhen: 'reviewed' }]
  })
  await api('POST', '/v1/review-incentives', { type: 'points', points: 50, minRating: 5, verifiedOnly: false })
  const coupon = await api('POST', '/v1/review-incentives', { type: 'coupon', minRating: 4, verifiedOnly: false })
  await api('POST', `/v1/review-incentives/${coupon.id}/codes`, { codes: ['C-1', 'C-2'] })
  await api('POST', '/v1/affiliates', {
    name: 'Ann\'s blog',
    code: 'ann10',
    commissionRate: '0.1',
    customerId: customers['ann@example.test']
  })
  await api('POST', '/v1/affiliates', { name: 'Magazine', code: 'MAG', commissionRate: '0.05', customerId: 'cust-1042' })
  await api('PUT', '/v1/affiliates/settings', { usdRates: { EUR: '1.08' } })
  const { webhookSecret } = await seedStore(app, tenant)
  // Sam's first order completes Ann's referral, and came through Ann's affiliate code.
  await api('PUT', '/v1/orders', {
    orders: [{
      platformOrderId: 'o3',
      customerEmail: 'sam@example.test',
      total: 20,
      currency: 'EUR',
      affiliateCode: 'ANN10',
      fulfilledAt: '2026-11-02T00:00:00Z',
      lineItems: [{ platformProductId: 'p1', quantity: 1 }]
    }]
  })
  await api('POST', `/v1/loyalty/accounts/${customers['bo@example.test']}/transactions`, {
    points: 30,
    reason: 'Welcome',
    idempotencyKey: 'welcome-bo'
  })
  // Published: Ann's 5-star review earns her points, Dee's 4-star one a code from the pool.
  await visitor('/v1/reviews', {
    ip: '198.51.100.10',
    payload: { productId: 'p1', rating: 5, body: 'Love it', authorName: 'Ann', authorEmail: 'ann@example.test' }
  })
  for (const review of (await api('GET', '/v1/reviews?status=pending')).data.filter((r: { rating: number }) => r.rating >= 4)) {
    await api('PATCH', `/v1/reviews/${review.id}`, { status: 'published' })
  }
  await api('PUT', '/v1/email/templates/review_request', { subject: 'How was it?', body: 'Tell us about {{orderId}}' })
  await api('PUT', '/v1/email-branding', { fromName: 'Shirt Co', primaryColor: '#2f5d50' })
  await api('PUT', '/v1/email/settings', { loyaltyRewardMails: false, reviewIncentiveMails: true })
  await api('POST', '/v1/email-suppressions', { email: 'gone@example.test', reason: 'manual' })
  const tops = await api('POST', '/v1/categories', { name: 'Tops', slug: 'tops' })
  const shirts = await api('POST', '/v1/categories', { name: 'Shirts', slug: 'shirts', parentId: tops.id })
  await api('PUT', '/v1/products', { products: [{ platformProductId: 'p1', title: 'Shirt', categoryIds: [shirts.id, tops.id] }] })
  await api('POST', '/v1/faqs', { question: 'Does it shrink?', answer: 'No', productId: 'p1', categoryId: shirts.id, status: 'published' })
  const gallery = await api('POST', '/v1/galleries', { name: 'Worn by you', productId: 'p1', status: 'published' })
  const photo = await visitor(
    `/v1/galleries/${gallery.id}/photos`,
    formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG }, { caption: 'Beach day', authorName: 'Ann' })
  )
  await api('PATCH', `/v1/galleries/${gallery.id}/photos/${photo.id}`, { status: 'approved' })
  await visitor(`/v1/galleries/${gallery.id}/favourites`, { payload: { photoId: photo.id } })
  await visitor(`/v1/galleries/${gallery.id}/leads`, { payload: { email: 'lead@example.test', name: 'Lee', consent: true } })
  const page = await api('POST', '/v1/web-pages', { url: PAGE, title: 'Shirt', type: 'product' })
  await api('POST', '/v1/placements', {
    webPageId: page.id,
    widget: 'gallery',
    selector: '#gallery',
    settings: { galleryId: gallery.id, pageSize: 6 }
  })
  await api('POST', '/v1/placements', { webPageId: page.id, widget: 'reviews', selector: '#reviews', settings: { productId: 'p1' } })
  return { webhookSecret }
}

/** A store with every kind of data, its completed backup, and an empty store of the organization it was restored into. */
async function restoredCopy (t: Test) {
  // Each read of the clock moves it a second: the seeding's many calls stay inside one key's budget.
  const app = await build(t, { clock: tickingClock() })
  const tenant = await makeTenant(app)
  const { webhookSecret } = await seedEverything(app, tenant)
  const { created, backup } = await completedBackup(app, tenant)
  const target = await makeStore(app, tenant, { origins: ['https://shop.example'] })
  const restored = await as(app, tenant)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })
  return { app, tenant, webhookSecret, created, backup, target, restored }
}

t.test('a backup restored into an empty store of the organization equals the source in every exported table', async (t) => {
  const { app, tenant, webhookSecret, created, backup, target, restored } = await restoredCopy(t)
  t.equal(created.statusCode, 202)
  t.match(created.json(), { status: 'queued', size: null, checksum: null })
  t.match(backup, { status: 'completed', counts: { products: 2, orders: 3, imports: 1, reviews: 4, review_votes: 1 } })
  t.same(
    EXPORTED_TABLES.map(({ table }) => table).filter((table) => !(backup.counts[table] > 0)),
    [],
    'the source has rows in every exported table'
  )

  const download = await as(app, tenant)('GET', `/v1/backups/${backup.id}/download`)
  t.equal(download.statusCode, 200)
  t.equal(download.headers['content-type'], 'application/gzip')
  t.equal(createHash('sha256').update(download.rawPayload).digest('hex'), backup.checksum.value)
  t.equal(download.headers['x-checksum-sha256'], backup.checksum.value)
  t.equal(download.rawPayload.length, backup.size)
  const text = gunzipSync(download.rawPayload).toString()
  const lines = text.trim().split('\n').map((line) => JSON.parse(line))
  t.match(lines[0], { format: 'evidence-hub-backup', version: 4, backupId: backup.id, storeEnvId: tenant.storeId })
  t.same(lines.at(-1), { end: true, counts: backup.counts, files: { count: 1, bytes: JPEG.length, missing: [] } })
  t.notOk(text.includes(webhookSecret.slice(6)) || text.includes('secret_sealed') || text.includes('svc_'), 'no secret')

  t.equal(restored.statusCode, 200, restored.body)
  t.same(restored.json().counts, backup.counts)
  t.same(await comparable(app, target), await comparable(app, tenant.storeId))
  t.same(await sourceIdsIn(app, tenant.storeId, target), [], 'no id of the source is left in the restored store')
  const inTarget = as(app, { ...tenant, storeId: target })
  t.equal((await inTarget('GET', '/v1/reviews')).json().meta.total, 4, 'list totals rebuilt')
  const analytics = '/v1/analytics/reviews?from=2025-01-01&to=2026-12-31&interval=month'
  t.same((await inTarget('GET', analytics)).json(), (await as(app, tenant)('GET', analytics)).json(), 'analytics rebuilt')
  t.same(
    (await inTarget('GET', '/v1/analytics/review-requests')).json(),
    (await as(app, tenant)('GET', '/v1/analytics/review-requests')).json()
  )
  const summary = (store: string) => storefront(app, { method: 'GET', url: '/v1/storefront/summary?productId=p1', store })
  t.same((await summary(target)).json(), (await summary(tenant.storeId)).json(), 'the storefront summary rebuilt')
})

t.test('restored rows refer to the restored rows: ledger, referrals, orders, incentives, affiliates and content', async (t) => {
  const { app, tenant, target } = await restoredCopy(t)
  const source = as(app, tenant)
  const copy = as(app, { ...tenant, storeId: target })
  const get = async (api: typeof copy, url: string) => (await api('GET', url)).json()
  const byEmail = async (api: typeof copy) =>
    Object.fromEntries((await get(api, '/v1/customers')).data.map((c: { email: string, id: string }) => [c.email, c.id]))
  const [was, now] = [await byEmail(source), await byEmail(copy)]
  const reviewOf = async (api: typeof copy, body: string) =>
    (await get(api, '/v1/reviews?limit=100')).data.find((r: { body: string }) => r.body === body).id
  const referralOf = async (api: typeof copy) => (await get(api, '/v1/loyalty/referrals')).data[0]

  const referral = await referralOf(copy)
  t.match(referral, { referrerCustomerId: now['ann@example.test'], refereeCustomerId: now['sam@example.test'], status: 'completed' })
  // Ann's ledger in order, on her restored account, its grants keyed by the restored review and referral.
  const keys = new Map([[await reviewOf(source, 'Love it'), await reviewOf(copy, 'Love it')], [(await referralOf(source)).id, referral.id]])
  const ann = await get(copy, `/v1/loyalty/accounts/${now['ann@example.test']}`)
  const before = await get(source, `/v1/loyalty/accounts/${was['ann@example.test']}`)
  t.match(ann, { id: /^lya_/, customerId: now['ann@example.test'], balance: before.balance, tier: before.tier })
  t.not(ann.id, before.id)
  const entries = (account: typeof ann) => account.ledger.data.map(({ id, ...entry }: { id: string }) => entry)
  t.same(
    entries(ann),
    entries(before).map((e: { idempotencyKey: string }) => ({ ...e, idempotencyKey: keys.get(e.idempotencyKey) ?? e.idempotencyKey }))
  )
  t.same(entries(ann).map((e: { kind: string }) => e.kind).sort(), ['order', 'referral', 'review'])

  const sequence = (await get(copy, '/v1/email-sequences')).data[0]
  t.equal(sequence.active, true, 'the active sequence is the target\'s')
  t.match(await get(copy, '/v1/orders/o3'), {
    customerId: now['sam@example.test'],
    affiliateCode: 'ANN10',
    reviewRequest: { sequenceId: sequence.id }
  })

  const incentives = (await get(copy, '/v1/review-incentives')).data
  t.match(incentives.find((i: { type: string }) => i.type === 'coupon'), { pool: { available: 1, issued: 1 } })
  const affiliates = (await get(copy, '/v1/affiliates')).data
  const blog = affiliates.find((a: { code: string }) => a.code === 'ANN10')
  t.equal(blog.customerId, now['ann@example.test'])
  t.equal(affiliates.find((a: { code: string }) => a.code === 'MAG').customerId, 'cust-1042', 'a free-form customer id stays')
  t.match((await get(copy, `/v1/affiliates/${blog.id}/referrals`)).data, [{ orderId: 'o3', affiliateId: blog.id, status: 'payable' }])

  const categories = Object.fromEntries((await get(copy, '/v1/categories')).data.map((c: { slug: string }) => [c.slug, c]))
  t.equal(categories.shirts.parentId, categories.tops.id)
  t.same((await get(copy, '/v1/products/p1')).categoryIds, [categories.shirts.id, categories.tops.id].sort())
  t.match((await get(copy, '/v1/faqs')).data, [{ categoryId: categories.shirts.id, productId: 'p1' }])
  const gallery = (await get(copy, '/v1/galleries')).data[0]
  const placements =
    (await storefront(app, { method: 'GET', url: `/v1/storefront/placements?url=${encodeURIComponent(PAGE)}`, store: target })).json()
  t.match(placements.data.find((p: { widget: string }) => p.widget === 'gallery'), { settings: { galleryId: gallery.id, pageSize: 6 } })
  const shown = (await storefront(app, { method: 'GET', url: `/v1/storefront/galleries/${gallery.id}`, store: target })).json()
  t.match(shown, { name: 'Worn by you', productId: 'p1', photos: [{ caption: 'Beach day', favouriteCount: 1 }] })
  t.match((await get(copy, `/v1/galleries/${gallery.id}/leads`)).data, [{ email: 'lead@example.test', galleryId: gallery.id }])
})

t.test('rows that name rows later in the backup (a category moved under a newer one) restore on both databases', async (t) => {
  const app = await build(t, { clock: tickingClock() })
  const tenant = await makeTenant(app)
  const api = as(app, tenant)
  const shirts = (await api('POST', '/v1/categories', { name: 'Shirts', slug: 'shirts' })).json()
  const tops = (await api('POST', '/v1/categories', { name: 'Tops', slug: 'tops' })).json()
  const clothes = (await api('POST', '/v1/categories', { name: 'Clothes', slug: 'clothes' })).json()
  await api('PATCH', `/v1/categories/${shirts.id}`, { parentId: tops.id })
  await api('PATCH', `/v1/categories/${tops.id}`, { parentId: clothes.id })
  await api('PUT', '/v1/products', { products: [{ platformProductId: 'p1', categoryIds: [shirts.id, clothes.id] }] })
  await api('POST', '/v1/faqs', { question: 'Fit?', answer: 'True to size', categoryId: shirts.id })
  const { backup } = await completedBackup(app, tenant)
  const text = gunzipSync((await api('GET', `/v1/backups/${backup.id}/download`)).rawPayload).toString()
  t.ok(
    text.indexOf('"slug":"shirts"') < text.indexOf('"slug":"tops"') && text.indexOf('"slug":"tops"') < text.indexOf('"slug":"clothes"'),
    'each child comes before its parent'
  )

  const target = await makeStore(app, tenant)
  t.equal((await api('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })).statusCode, 200)
  const copy = as(app, { ...tenant, storeId: target })
  const restored = Object.fromEntries((await copy('GET', '/v1/categories')).json().data.map((c: { slug: string }) => [c.slug, c]))
  t.equal(restored.shirts.parentId, restored.tops.id)
  t.equal(restored.tops.parentId, restored.clothes.id)
  t.equal(restored.clothes.parentId, null)
  t.notOk([shirts.id, tops.id, clothes.id].includes(restored.shirts.id), 'new ids')
  t.same((await copy('GET', '/v1/products/p1')).json().categoryIds, [restored.shirts.id, restored.clothes.id].sort())
  t.equal((await copy('GET', '/v1/faqs')).json().data[0].categoryId, restored.shirts.id)
  t.equal(
    (await copy('DELETE' as 'GET', `/v1/categories/${restored.tops.id}`)).json().code,
    'conflict',
    'the restored tree holds: a parent keeps its children'
  )
})

t.test('a reward for a review deleted before the backup stays given in the restored store, naming no source row', async (t) => {
  const app = await build(t, { clock: tickingClock() })
  const tenant = await makeTenant(app)
  const api = as(app, tenant)
  await api('PUT', '/v1/customers', { customers: [{ platformCustomerId: 'ann', email: 'ann@example.test' }] })
  const points = (await api('POST', '/v1/review-incentives', { type: 'points', points: 50, minRating: 5, verifiedOnly: false })).json()
  const coupon = (await api('POST', '/v1/review-incentives', { type: 'coupon', minRating: 4, verifiedOnly: false })).json()
  await api('POST', `/v1/review-incentives/${coupon.id}/codes`, { codes: ['C-1', 'C-2'] })
  await api('PUT', '/v1/products', { products: [{ platformProductId: 'p1' }] })
  const deleted: string[] = [points.id]
  for (const [rating, email, ip] of [[5, 'ann@example.test', '198.51.100.1'], [4, 'dee@example.test', '198.51.100.2']] as const) {
    const review = (await storefront(app, {
      url: '/v1/reviews',
      store: tenant.storeId,
      ip,
      payload: { productId: 'p1', rating, body: 'Good', authorName: 'A', authorEmail: email }
    })).json()
    await api('PATCH', `/v1/reviews/${review.id}`, { status: 'published' })
    await api('DELETE' as 'GET', `/v1/reviews/${review.id}`)
    deleted.push(review.id)
  }
  await api('DELETE' as 'GET', `/v1/review-incentives/${points.id}`)
  const { backup } = await completedBackup(app, tenant)
  const target = await makeStore(app, tenant)
  t.equal((await api('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })).statusCode, 200)

  const copy = as(app, { ...tenant, storeId: target })
  const ann = (await copy('GET', '/v1/customers')).json().data[0].id
  const [entry] = (await copy('GET', `/v1/loyalty/accounts/${ann}`)).json().ledger.data
  t.match(entry, { kind: 'review', points: 50, idempotencyKey: /^rev_/ })
  const issues = await app.services.db('review_incentive_issues').where({ store_env_id: target }).orderBy('created_at')
  t.equal(issues.length, 2, 'each review keeps its one reward')
  t.equal(issues[0].review_id, entry.idempotencyKey, 'the issue and the ledger entry still name the same (absent) review')
  t.match(
    (await copy('GET', '/v1/review-incentives')).json().data,
    [{ type: 'coupon', pool: { available: 1, issued: 1 } }],
    'the given code stays given'
  )
  t.same(await sourceIdsIn(app, tenant.storeId, target), [])
  const named = [
    entry.idempotencyKey,
    ...issues.flatMap((issue: { review_id: string, incentive_id: string }) => [issue.review_id, issue.incentive_id])
  ]
  t.same(named.filter((id) => deleted.includes(id)), [], 'not even the deleted rows\' ids')
})

t.test('every reference names the store or a table with new ids restored before it (or itself, for an id made ahead)', async (t) => {
  const order = EXPORTED_TABLES.map(({ table }) => table)
  for (const [index, spec] of EXPORTED_TABLES.entries()) {
    for (const [column, refs] of Object.entries(spec.refs ?? {})) {
      for (const ref of refsOf(refs)) {
        if (ref.table === STORE) continue
        const at = order.indexOf(ref.table)
        t.ok(EXPORTED_TABLES[at]?.newIds, `${spec.table}.${column} names ${ref.table}, whose ids are renewed`)
        t.ok(ref.missing === 'fresh' ? at <= index : at < index, `${spec.table}.${column}: ${ref.table} is restored first`)
      }
    }
  }
})

t.test('restoring the same backup into the same store twice answers the first result and writes nothing more', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await seedStore(app, tenant)
  const { backup } = await completedBackup(app, tenant)
  const target = await makeStore(app, tenant)
  const first = await as(app, tenant)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })
  const second = await as(app, tenant)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })
  t.equal(second.statusCode, 200)
  t.same(second.json(), first.json())
  t.equal((await app.services.db('reviews').where({ store_env_id: target }).count({ n: '*' }))[0].n, 3)
})

t.test('restores into one empty store sent at once: one backup is restored once, its repeat answers that result, another backup is refused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await seedStore(app, tenant)
  const { backup } = await completedBackup(app, tenant)
  const { backup: other } = await completedBackup(app, tenant)
  const target = await makeStore(app, tenant)
  // A key of its own: the seeding spent this second's budget of the tenant's.
  const restore = as(app, tenant, (await makeKey(app, tenant, 'admin')).secret)
  const answers = await Promise.all(
    [backup.id, backup.id, other.id].map((id) => restore('POST', `/v1/backups/${id}/restore`, { targetStoreEnvId: target }))
  )
  const restored = answers.filter((r) => r.statusCode === 200)
  t.same(answers.filter((r) => r.statusCode !== 200).map((r) => r.json().code), Array(3 - restored.length).fill('conflict'))
  t.ok(restored.length >= 1 && restored.every((r) => r.body === restored[0].body), 'every restore that succeeded answers the one result')
  t.equal((await app.services.db('backup_restores').where({ store_env_id: target }).count({ n: '*' }))[0].n, 1)
  t.equal((await app.services.db('reviews').where({ store_env_id: target }).count({ n: '*' }))[0].n, 3)
})

t.test('a restore into a store with data, or a store of another organization, is refused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  await seedStore(app, tenant)
  const { backup } = await completedBackup(app, tenant)
  // A key of its own: seeding spent most of the first key's 10/s.
  const key = (await makeKey(app, tenant, 'admin')).secret
  const restore = (target: string) => as(app, tenant, key)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })
  const itself = await restore(tenant.storeId)
  t.equal(itself.statusCode, 409)
  t.equal(itself.json().code, 'conflict')
  const busy = await makeStore(app, tenant)
  await as(app, { ...tenant, storeId: busy }, key)('PUT', '/v1/products', { products: [{ platformProductId: 'other' }] })
  t.equal((await restore(busy)).json().code, 'conflict')
  const stranger = await makeTenant(app)
  const foreign = await restore(stranger.storeId)
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().code, 'not_found')
  t.equal((await app.services.db('products').where({ store_env_id: stranger.storeId }).count({ n: '*' }))[0].n, 0)
  t.equal((await restore('env_' + 'x'.repeat(61))).statusCode, 400)
})

t.test('a backup not yet built cannot be downloaded or restored, and an unknown one is not found', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const queued = (await as(app, tenant)('POST', '/v1/backups')).json()
  t.equal((await as(app, tenant)('GET', `/v1/backups/${queued.id}/download`)).json().code, 'conflict')
  const target = await makeStore(app, tenant)
  t.equal((await as(app, tenant)('POST', `/v1/backups/${queued.id}/restore`, { targetStoreEnvId: target })).json().code, 'conflict')
  t.equal((await as(app, tenant)('GET', '/v1/backups/bkp_nope')).json().code, 'not_found')
  const list = (await as(app, tenant)('GET', '/v1/backups?limit=500')).json()
  t.same(list.meta, { total: 1, page: 1, limit: 100, totalPages: 1 })
  t.equal((await as(app, tenant)('GET', '/v1/backups?updatedSince=0000-01-01T00:00:00Z')).statusCode, 400)
})

t.test('backups are for owners and admins of the store\'s organization only', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { backup } = await completedBackup(app, tenant)
  for (const role of ['editor', 'viewer'] as const) {
    const key = (await makeKey(app, tenant, role)).secret
    t.equal((await as(app, tenant, key)('GET', '/v1/backups')).json().code, 'role_forbidden', role)
  }
  const stranger = await makeTenant(app)
  t.equal(
    (await call(app, { method: 'GET', url: `/v1/backups/${backup.id}`, key: stranger.key, store: tenant.storeId })).json().code,
    'store_env_not_found'
  )
  t.equal(
    (await call(app, { method: 'GET', url: `/v1/backups/${backup.id}/download`, key: stranger.key, store: stranger.storeId })).json().code,
    'not_found'
  )
  t.ok(await addMember(app, tenant, 'admin'))
})

t.test('a backup left running by a vanished instance is taken over after 30 minutes, and built once', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const created = (await as(app, tenant)('POST', '/v1/backups')).json()
  const ghost = await app.services.backupsRepo.claim('ghost-runner', clock(), clock() - STALE_AFTER_MS, tenant.storeId)
  t.equal(ghost?.id, created.id)
  t.equal(await app.services.backups.runQueued(tenant.storeId), 0, 'another runner holds it')
  clock.advance(STALE_AFTER_MS + 1)
  const [a, b] = await Promise.all([app.services.backups.runQueued(tenant.storeId), app.services.backups.runQueued(tenant.storeId)])
  t.equal(a + b, 1, 'two runners build it once')
  t.equal((await as(app, tenant)('GET', `/v1/backups/${created.id}`)).json().status, 'completed')
  t.notOk(
    await app.services.backupsRepo.finish(created.id, 'ghost-runner', { status: 'failed' }),
    'the vanished runner cannot finish it late'
  )
  const updates = await app.services.db('events').where({ store_env_id: tenant.storeId, type: 'backup.updated' }).count({ n: '*' })
  t.equal(Number(updates[0].n), 1)
})
