import t from 'tap'
import { sharedApp } from '../helper.js'
import { signedInOwner } from '../admin/agent.js'
import { makeCustomers, setSettings } from '../loyalty/support.js'

t.test('the customers page lists the store\'s customers and finds one by email', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c1', email: 'ann@example.com', firstName: 'Ann' }, {
    platformCustomerId: 'c2',
    email: 'bob@example.com'
  }])
  const page = await agent.get('/admin/customers')
  t.equal(page.statusCode, 200)
  t.match(page.body, /ann@example\.com/)
  t.match(page.body, /href="\/admin\/customers"[^>]*aria-current="page"/, 'the nav marks the page')
  const found = await agent.get('/admin/customers?email=BOB@example.com')
  t.match(found.body, /bob@example\.com/)
  t.notMatch(found.body, /ann@example\.com/)
})

t.test('the customers page shows a customer made from a gallery lead as one, without a platform id', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await app.db.transaction((trx) =>
    app.services.customers.fromLead(trx, { orgId: tenant.orgId, storeEnvId: tenant.storeId, email: 'lead@example.com', name: 'Lee' })
  )
  const page = await agent.get('/admin/customers')
  t.match(page.body, /lead@example\.com<\/td>\s*<td data-label="Platform id">— \(gallery lead\)<\/td>/)
  t.notMatch(page.body, /null/)
})

t.test('erasing from the admin asks for confirmation, then erases and audits the person who did it', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const ids = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c1', email: 'gone@example.com' }])
  const confirm = await agent.get(`/admin/customers/${ids.c1}/erase`)
  t.equal(confirm.statusCode, 200)
  t.match(confirm.body, /Erase gone@example\.com and all their personal data\?/)
  t.equal((await app.db('customers').where({ id: ids.c1 }).first()).email, 'gone@example.com', 'the confirmation page changes nothing')
  const forged = await agent.post(`/admin/customers/${ids.c1}/erase`, { _csrf: 'forged' })
  t.equal(forged.statusCode, 403)
  const done = await agent.post(`/admin/customers/${ids.c1}/erase`)
  t.equal(done.statusCode, 303)
  t.equal(done.headers.location, '/admin/customers')
  const row = await app.db('customers').where({ id: ids.c1 }).first()
  t.match(row, { email: null, platform_customer_id: null })
  const audit = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'customer.erased' }).first()
  t.match(audit, { actor: /^person:/, subject: `customer:${ids.c1}` })
  t.equal((await agent.get(`/admin/customers/${ids.c1}/erase`)).statusCode, 404)
})

t.test('the loyalty page saves the settings from its form and keeps the tiers set through the API', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await setSettings(app, tenant.storeId, { tiers: [{ name: 'vip', minPoints: 10 }] })
  t.match((await agent.get('/admin/loyalty')).body, /vip from 10/)
  const saved = await agent.post('/admin/loyalty/settings', {
    pointsPerUnit: '2',
    birthdayPoints: '150',
    referrerPoints: '0',
    refereePoints: '25'
  })
  t.equal(saved.statusCode, 303)
  t.match(await app.services.loyalty.getSettings(tenant.storeId), {
    pointsPerUnit: 2,
    birthdayReward: { points: 150 },
    referralReward: { referrerPoints: 0, refereePoints: 25 },
    tiers: [{ name: 'vip', minPoints: 10 }]
  })
  const bad = await agent.post('/admin/loyalty/settings', {
    pointsPerUnit: '-1',
    birthdayPoints: '1.5',
    referrerPoints: '0',
    refereePoints: '0'
  })
  t.equal(bad.statusCode, 400)
})

t.test('an account\'s page shows its balance and ledger', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const ids = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'c1' }])
  const store = (await app.services.stores.find(tenant.storeId))!
  await app.services.loyalty.transact(store, ids.c1, { points: 40, reason: 'Goodwill for a late parcel', idempotencyKey: 'k' })
  t.match((await agent.get('/admin/loyalty')).body, new RegExp(`/admin/loyalty/accounts/${ids.c1}`))
  const page = await agent.get(`/admin/loyalty/accounts/${ids.c1}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, /Goodwill for a late parcel/)
  t.match(page.body, /<strong>40<\/strong> points/)
  t.equal((await agent.get('/admin/loyalty/accounts/cus_unknown')).statusCode, 404)
})

t.test('the incentives page shows each pool, and pasted codes already in it are skipped', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const store = (await app.services.stores.find(tenant.storeId))!
  const coupon = await app.services.reviewIncentives.create(store, { type: 'coupon', minRating: 4, verifiedOnly: true })
  const before = await agent.get('/admin/review-incentives')
  t.match(before.body, /Empty<\/span>, 0 given/)
  t.match(before.body, /4\+ stars, verified only/)
  t.equal((await agent.post(`/admin/review-incentives/${coupon.id}/codes`, { codes: 'A-1\r\nA-2\n\n' })).statusCode, 303)
  const again = await agent.post(`/admin/review-incentives/${coupon.id}/codes`, { codes: '  A-1  \nA-3\n' })
  t.equal(again.statusCode, 303)
  t.match((await agent.get(String(again.headers.location))).body, '1 codes added. 1 already in the pool, skipped. 3 available.')
  const empty = await agent.post(`/admin/review-incentives/${coupon.id}/codes`, { codes: '  \n' })
  t.equal(empty.statusCode, 400)
  t.match(empty.body, /between 1 and 1,000 codes/)
})
