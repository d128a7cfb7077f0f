import t from 'tap'
import { gunzipSync } from 'node:zlib'
import { call, sharedApp } from '../helper.js'
import { makeStore, makeTenant } from '../factories.js'
import { Agent, signedInMember, signedInOwner } from './agent.js'

/** The admin pages of issue 18: analytics with server-rendered charts, the evidence preview, backups. */

async function ownerWithReviews () {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const as = { key: tenant.key, store: tenant.storeId }
  await call(app, { method: 'PUT', url: '/v1/products', ...as, payload: { products: [{ platformProductId: 'p1', title: 'Linen shirt' }] } })
  const today = new Date(app.clock()).toISOString()
  await call(app, {
    method: 'POST',
    url: '/v1/imports',
    ...as,
    payload: {
      type: 'reviews',
      items: [5, 4, 4].map((rating) => ({
        productId: 'p1',
        rating,
        body: `Rated ${rating}`,
        authorName: 'Ann',
        authorEmail: 'ann@example.test',
        writtenAt: today
      }))
    }
  })
  return { app, tenant, agent }
}

t.test('the analytics page draws the review trend and the distribution as SVG, with the funnel', async (t) => {
  const { agent } = await ownerWithReviews()
  const res = await agent.get('/admin/analytics?interval=day')
  t.equal(res.statusCode, 200)
  t.match(res.body, /<svg[^>]+aria-label="Reviews per day and average rating"/)
  t.match(res.body, /<title>\d{4}-\d{2}-\d{2}: 3 reviews, average 4.33<\/title>/)
  t.match(res.body, /<svg[^>]+aria-label="Rating distribution"/)
  t.match(res.body, '<strong>3</strong> reviews')
  t.match(res.body, 'data-label="Sent">0<')
  t.notMatch(res.body, /style="/, 'no inline style (CSP)')
  const refused = await agent.get('/admin/analytics?from=2026-03-02&to=2026-03-01')
  t.equal(refused.statusCode, 400)
  t.match(refused.body, 'from must not be after to')
})

t.test('the evidence page previews the rating, the reviews and the JSON-LD of a product', async (t) => {
  const { agent } = await ownerWithReviews()
  const res = await agent.get('/admin/evidence?productId=p1')
  t.equal(res.statusCode, 200)
  t.match(res.body, 'Average <strong>4.33</strong> ★ from <strong>3</strong> reviews')
  t.match(res.body, '&quot;@type&quot;: &quot;AggregateRating&quot;')
  t.notMatch(res.body, 'ann@example.test')
  t.equal((await agent.get('/admin/evidence?productId=nope')).statusCode, 404)
})

t.test('an owner backs up a store, downloads the file and restores it into an empty store', async (t) => {
  const { app, tenant, agent } = await ownerWithReviews()
  const target = await makeStore(app, tenant)
  await agent.get('/admin/backups')
  t.equal((await agent.post('/admin/backups')).statusCode, 303)
  await app.services.backups.runQueued(tenant.storeId)
  const page = await agent.get('/admin/backups')
  const id = /data-backup-id="(bkp_[^"]+)"/.exec(page.body)![1]
  t.match(page.body, 'Completed')
  const file = await agent.get(`/admin/backups/${id}/download`)
  t.equal(file.headers['content-type'], 'application/gzip')
  t.match(gunzipSync(file.rawPayload).toString(), '"format":"evidence-hub-backup"')
  const restored = await agent.post(`/admin/backups/${id}/restore`, { targetStoreEnvId: target })
  t.equal(restored.statusCode, 303)
  t.match((await agent.get('/admin/backups')).body, 'Restored 5 rows')
  const again = await agent.post(`/admin/backups/${id}/restore`, { targetStoreEnvId: tenant.storeId })
  t.equal(again.statusCode, 409)
  t.match(again.body, 'not empty')
})

t.test('an editor sees analytics and evidence but not backups', async (t) => {
  const app = await sharedApp()
  const { tenant } = await signedInOwner(app)
  const { agent } = await signedInMember(app, tenant, 'editor')
  const stores = await agent.get('/admin/stores')
  t.match(stores.body, 'href="/admin/analytics"')
  t.notMatch(stores.body, 'href="/admin/backups"')
  t.equal((await agent.get('/admin/backups')).statusCode, 403)
  t.equal((await agent.post('/admin/backups')).statusCode, 403)
})

t.test('a lapsed store\'s backups page refuses as the API does: no list, no new backup', async (t) => {
  const app = await sharedApp()
  const lapsed = await makeTenant(app, { status: 'lapsed' })
  const owner = new Agent(app)
  await owner.signIn(lapsed.owner.email, lapsed.owner.password)
  t.equal((await owner.get('/admin/backups')).statusCode, 403)
  await owner.get('/admin/stores')
  t.equal((await owner.post('/admin/backups', {})).statusCode, 403)
  t.same(await app.db('backups').where({ store_env_id: lapsed.storeId }), [])
  t.equal((await owner.get('/admin/billing')).statusCode, 200, 'the plan page still serves, to renew')
})
