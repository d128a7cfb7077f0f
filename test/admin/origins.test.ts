import t from 'tap'
import { sharedApp } from '../helper.js'
import { makeStore, makeTenant } from '../factories.js'
import { signedInMember, signedInOwner } from './agent.js'

t.test('the stores page links each store to its allowed origins, which the owner sees listed', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const stores = await agent.get('/admin/stores')
  t.match(stores.body, `href="/admin/stores/${tenant.storeId}/origins">1 origin</a>`)
  const page = await agent.get(`/admin/stores/${tenant.storeId}/origins`)
  t.equal(page.statusCode, 200)
  t.match(page.body, '<li><code>https://shop.example</code></li>')
  t.match(page.body, /<textarea name="origins"[^>]*>https:\/\/shop\.example<\/textarea>/)
})

t.test('an owner saves a new list, one origin a line, and sees it normalised with a notice', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get(`/admin/stores/${tenant.storeId}/origins`)
  const saved = await agent.post(`/admin/stores/${tenant.storeId}/origins`, {
    origins: 'https://shop.example\r\nHTTPS://Outlet.Example/\r\n\r\nhttp://localhost:3000\r\n'
  })
  t.equal(saved.statusCode, 303)
  t.equal(saved.headers.location, `/admin/stores/${tenant.storeId}/origins`)
  const page = await agent.get(`/admin/stores/${tenant.storeId}/origins`)
  t.match(page.body, 'Allowed origins of Main store saved (3)')
  t.match(page.body, '<li><code>https://outlet.example</code></li>')
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, [
    'https://shop.example',
    'https://outlet.example',
    'http://localhost:3000'
  ])
  const log = await agent.get('/admin/audit-log?action=store.origins_updated')
  t.match(log.body, `store:${tenant.storeId}`)
})

t.test('a bad origin is shown as an error on the form with what was typed, and nothing changes', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get(`/admin/stores/${tenant.storeId}/origins`)
  const res = await agent.post(`/admin/stores/${tenant.storeId}/origins`, { origins: 'https://ok.example\nhttps://bad.example/path' })
  t.equal(res.statusCode, 400)
  t.match(res.body, /<p class="flash error" role="alert">Origin 2: https:\/\/bad\.example\/path is not an origin/)
  t.match(res.body, /<textarea name="origins"[^>]*>https:\/\/ok\.example\nhttps:\/\/bad\.example\/path<\/textarea>/)
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, ['https://shop.example'])
})

t.test('an empty list is saved and the page says the storefront is closed', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get(`/admin/stores/${tenant.storeId}/origins`)
  t.equal((await agent.post(`/admin/stores/${tenant.storeId}/origins`, { origins: '' })).statusCode, 303)
  const page = await agent.get(`/admin/stores/${tenant.storeId}/origins`)
  t.match(page.body, 'its storefront is closed to every site')
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, [])
})

t.test('an admin may change the origins of another store of the organization', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const second = await makeStore(app, tenant, { origins: ['https://second.example'] })
  const { agent } = await signedInMember(app, tenant, 'admin')
  await agent.get(`/admin/stores/${second}/origins`)
  t.equal((await agent.post(`/admin/stores/${second}/origins`, { origins: 'https://outlet.example' })).statusCode, 303)
  t.same((await app.stores.find(second))!.allowedOrigins, ['https://outlet.example'])
})

t.test('an editor sees the origins read-only and cannot change them', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { agent } = await signedInMember(app, tenant, 'editor')
  const page = await agent.get(`/admin/stores/${tenant.storeId}/origins`)
  t.equal(page.statusCode, 200)
  t.match(page.body, '<li><code>https://shop.example</code></li>')
  t.notMatch(page.body, '<textarea name="origins"')
  t.match(page.body, 'Owners and admins change this list.')
  const res = await agent.post(`/admin/stores/${tenant.storeId}/origins`, { origins: 'https://evil.example' })
  t.equal(res.statusCode, 403)
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, ['https://shop.example'])
})

t.test('a post without the CSRF token is refused and changes nothing', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get(`/admin/stores/${tenant.storeId}/origins`)
  const res = await agent.post(`/admin/stores/${tenant.storeId}/origins`, { _csrf: '', origins: 'https://evil.example' })
  t.equal(res.statusCode, 403)
  t.same((await app.stores.find(tenant.storeId))!.allowedOrigins, ['https://shop.example'])
})

t.test('another organization\'s store is not found, to look at or to change', async (t) => {
  const app = await sharedApp()
  const { agent } = await signedInOwner(app)
  const other = await makeTenant(app)
  t.equal((await agent.get(`/admin/stores/${other.storeId}/origins`)).statusCode, 404)
  await agent.get('/admin/stores')
  t.equal((await agent.post(`/admin/stores/${other.storeId}/origins`, { origins: 'https://evil.example' })).statusCode, 404)
  t.same((await app.stores.find(other.storeId))!.allowedOrigins, ['https://shop.example'])
})
