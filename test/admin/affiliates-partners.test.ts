import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { partnerGranted, signedInMember, signedInOwner } from './agent.js'

t.test('the affiliates page adds an affiliate, saves USD rates and shows its referrals with the commission', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/affiliates')
  const bad = await agent.post('/admin/affiliates', { name: 'Ann', code: 'ann', commissionRate: '0.1234567' })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, 'at most four decimals')
  t.equal((await agent.post('/admin/affiliates', { name: 'Ann', code: 'ann', commissionRate: '0.1' })).statusCode, 303)
  t.equal((await agent.post('/admin/affiliates/settings', { rates: 'eur 1.08\r\n\r\nGBP=1.25' })).statusCode, 303)
  t.same((await call(app, { method: 'GET', url: '/v1/affiliates/settings', key: tenant.key, store: tenant.storeId })).json().usdRates, {
    EUR: '1.08',
    GBP: '1.25'
  })
  await call(app, {
    method: 'PUT',
    url: '/v1/orders',
    key: tenant.key,
    store: tenant.storeId,
    payload: { orders: [{ platformOrderId: 'o-9', total: 5000, currency: 'EUR', affiliateCode: 'ANN' }] }
  })
  const list = await agent.get('/admin/affiliates')
  const id = /href="\/admin\/affiliates\/(aff_[A-Za-z0-9]+)"/.exec(list.body)![1]
  const page = await agent.get(`/admin/affiliates/${id}`)
  t.match(page.body, '<code>o-9</code>')
  t.match(page.body, '462.96 EUR')
  t.match(page.body, 'Capped at 500 USD')
  t.match(page.body, '500.00 USD')
})

t.test('an owner grants and revokes a partner on the partners page; an admin sees the grants but cannot grant', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const agency = await makeTenant(app)
  await agent.get('/admin/partners')
  const owner = await agent.post('/admin/partners', { partnerOrgId: agency.orgId, role: 'owner' })
  t.equal(owner.statusCode, 400)
  t.equal((await agent.post('/admin/partners', { partnerOrgId: agency.orgId, role: 'editor' })).statusCode, 303)
  t.match((await agent.get('/admin/partners')).body, `data-partner-id="${agency.orgId}"`)
  const { agent: admin } = await signedInMember(app, tenant, 'admin')
  const seen = await admin.get('/admin/partners')
  t.match(seen.body, `data-partner-id="${agency.orgId}"`)
  t.notMatch(seen.body, 'Grant access')
  t.equal((await admin.post('/admin/partners', { partnerOrgId: agency.orgId, role: 'admin' })).statusCode, 403)
  await agent.get(`/admin/partners/${agency.orgId}/revoke`)
  t.equal((await agent.post(`/admin/partners/${agency.orgId}/revoke`)).statusCode, 303)
  t.notMatch((await agent.get('/admin/partners')).body, `data-partner-id="${agency.orgId}"`)
})

t.test('the store switcher offers client stores; there the partner acts with the lesser role, audited, and never manages the client', async (t) => {
  const { app, client, agency, partner: owner, clientOwner } = await partnerGranted('editor')

  const stores = await owner.get('/admin/stores')
  t.match(stores.body, 'Client stores (partner access)')
  t.match(stores.body, `value="${client.storeId}"`)
  t.equal((await owner.post('/admin/stores/select', { store: client.storeId })).statusCode, 303)
  const inClient = await owner.get('/admin/affiliates')
  t.equal(inClient.statusCode, 200)
  t.match(inClient.body, 'partner from')
  // Granted editor: the agency's owner is an editor here, and editors do not write affiliates.
  t.equal((await owner.post('/admin/affiliates', { name: 'Ann', code: 'ann', commissionRate: '0.1' })).statusCode, 403)
  t.equal((await owner.post('/admin/members/invite', { email: 'x@example.test', role: 'editor' })).statusCode, 403)
  const log = (await call(app, { method: 'GET', url: '/v1/account/audit-log', key: client.key, store: client.storeId })).json().data
  const partnerRequests = log.filter((e: { action: string }) => e.action === 'partner.request')
  t.ok(partnerRequests.length >= 3)
  t.ok(partnerRequests.every((e: { details: { partnerOrgId: string } }) => e.details.partnerOrgId === agency.orgId))

  // Revoked: the next page is back in the agency's own organization.
  await clientOwner.get(`/admin/partners/${agency.orgId}/revoke`)
  await clientOwner.post(`/admin/partners/${agency.orgId}/revoke`)
  const after = await owner.get('/admin/stores')
  t.notMatch(after.body, 'Client stores (partner access)')
  t.notMatch(after.body, 'partner from')
})

t.test('a partner admin in a client\'s store is refused member and OAuth client management however the path is spelt', async (t) => {
  const { app, client, partner } = await partnerGranted('admin')
  await partner.get('/admin/stores')
  await partner.post('/admin/stores/select', { store: client.storeId })
  await partner.get('/admin/stores')
  for (const path of ['/admin/members/invite', '/admin/%6Dembers/invite', '/admin/%6d%65mbers/invite']) {
    const res = await partner.post(path, { email: 'mole@example.test', role: 'admin' })
    t.equal(res.statusCode, 403, path)
  }
  for (const path of ['/admin/connections/clients', '/admin/connections/%63lients']) {
    t.equal((await partner.post(path, { name: 'Mole app', redirect_uris: 'https://evil.example/cb' })).statusCode, 403, path)
  }
  const members = (await call(app, { method: 'GET', url: '/v1/account/members', key: client.key, store: client.storeId })).json().data
  t.notOk(members.some((m: { email: string }) => m.email === 'mole@example.test'))
})
