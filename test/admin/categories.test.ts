import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { Agent, partnerInClientStore, signedInMember, signedInOwner } from './agent.js'

/** The admin categories page (issue 45, point 17): the tree through the service of /v1/categories. */

const api = (app: FastifyInstance, tenant: Tenant, method: 'GET' | 'POST', url: string, payload?: object) =>
  call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })

async function category (
  app: FastifyInstance,
  tenant: Tenant,
  name: string,
  slug: string,
  parentId: string | null = null
): Promise<string> {
  return (await api(app, tenant, 'POST', '/v1/categories', { name, slug, parentId })).json().id
}

t.test('an owner adds a subcategory from the page and the list shows it under its parent', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const shirts = await category(app, tenant, 'Shirts', 'shirts')
  await agent.get('/admin/categories')
  const res = await agent.post('/admin/categories', { name: 'Linen shirts', slug: 'linen-shirts', parentId: shirts })
  t.equal(res.statusCode, 303)
  const created = (await api(app, tenant, 'GET', '/v1/categories?parentId=' + shirts)).json().data
  t.match(created, [{ name: 'Linen shirts', slug: 'linen-shirts', parentId: shirts }])
  const page = (await agent.get('/admin/categories')).body
  const row = page.split(`data-category-id="${created[0].id}"`)[1].split('</tr>')[0]
  t.match(row, 'class="depth-1"')
  t.match(row, '<td data-label="Parent">Shirts</td>')
})

t.test('a slug left empty is made from the name', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/categories')
  t.equal((await agent.post('/admin/categories', { name: 'Tops & Tees — été', slug: '', parentId: '' })).statusCode, 303)
  t.match((await api(app, tenant, 'GET', '/v1/categories')).json().data, [{
    name: 'Tops & Tees — été',
    slug: 'tops-tees-ete',
    parentId: null
  }])
})

t.test('an edit that would make a category its own ancestor is shown on the form with the service\'s reason and changes nothing', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const top = await category(app, tenant, 'Clothing', 'clothing')
  const child = await category(app, tenant, 'Shirts', 'shirts', top)
  await agent.get(`/admin/categories/${top}`)
  const res = await agent.post(`/admin/categories/${top}`, { name: 'Clothing renamed', slug: 'clothing', parentId: child })
  t.equal(res.statusCode, 409)
  t.match(res.body, 'role="alert">A category cannot be its own ancestor')
  t.match(res.body, 'value="Clothing renamed"', 'what was typed is kept')
  t.match((await api(app, tenant, 'GET', `/v1/categories/${top}`)).json(), { name: 'Clothing', parentId: null })
})

t.test('a name or slug the API refuses is explained on the form, never a server error', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/categories')
  const cases: Array<[Record<string, string>, string]> = [
    [{ name: 'x'.repeat(201), slug: 'long' }, 'Name: must NOT have more than 200 characters'],
    [{ name: 'Shirts', slug: 'Not A Slug' }, 'Slug: Lower-case letters, digits and single hyphens'],
    [{ name: '   ', slug: '' }, 'Name: must NOT have fewer than 1 characters'],
    [{ name: 'Shirts', slug: 'shirts', parentId: 'cat_nothing' }, 'parentId names no category of this store']
  ]
  for (const [form, message] of cases) {
    const res = await agent.post('/admin/categories', form)
    t.equal(res.statusCode, 400, message)
    t.match(res.body, message)
  }
  t.equal((await api(app, tenant, 'GET', '/v1/categories')).json().meta.total, 0)
})

t.test('a name is measured in characters as the API measures it: 200 emoji are accepted', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/categories')
  t.equal((await agent.post('/admin/categories', { name: '\u{1F455}'.repeat(200), slug: 'emoji' })).statusCode, 303)
  t.equal([...(await api(app, tenant, 'GET', '/v1/categories')).json().data[0].name].length, 200)
})

t.test('a slug another category holds is refused on the form with the service\'s message', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await category(app, tenant, 'Shirts', 'shirts')
  await agent.get('/admin/categories')
  const res = await agent.post('/admin/categories', { name: 'More shirts', slug: 'shirts' })
  t.equal(res.statusCode, 409)
  t.match(res.body, 'Another category already has the slug &quot;shirts&quot;')
})

t.test('a category with subcategories is kept, and the page says why', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const top = await category(app, tenant, 'Clothing', 'clothing')
  await category(app, tenant, 'Shirts', 'shirts', top)
  await agent.get(`/admin/categories/${top}/delete`)
  const res = await agent.post(`/admin/categories/${top}/delete`)
  t.equal(res.headers.location, `/admin/categories/${top}`)
  t.match((await agent.get(`/admin/categories/${top}`)).body, 'Move or delete its subcategories first')
  t.equal((await api(app, tenant, 'GET', `/v1/categories/${top}`)).statusCode, 200)
})

t.test('deleting a category after its confirmation removes it', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const id = await category(app, tenant, 'Shirts', 'shirts')
  t.match((await agent.get(`/admin/categories/${id}/delete`)).body, 'Delete the category “Shirts”?')
  t.equal((await agent.post(`/admin/categories/${id}/delete`)).headers.location, '/admin/categories')
  t.equal((await api(app, tenant, 'GET', `/v1/categories/${id}`)).statusCode, 404)
})

t.test('an editor adds and edits categories', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { agent } = await signedInMember(app, tenant, 'editor')
  t.match((await agent.get('/admin/stores')).body, 'href="/admin/categories"')
  await agent.get('/admin/categories')
  t.equal((await agent.post('/admin/categories', { name: 'Shirts', slug: 'shirts' })).statusCode, 303)
  const id = (await api(app, tenant, 'GET', '/v1/categories')).json().data[0].id
  await agent.get(`/admin/categories/${id}`)
  t.equal((await agent.post(`/admin/categories/${id}`, { name: 'Shirts and blouses', slug: 'shirts' })).statusCode, 303)
  t.equal((await api(app, tenant, 'GET', `/v1/categories/${id}`)).json().name, 'Shirts and blouses')
})

t.test('a partner granted viewer sees the client\'s categories but cannot add or change one', async (t) => {
  const { app, client, partner } = await partnerInClientStore('viewer')
  const id = await category(app, client, 'Shirts', 'shirts')
  const page = await partner.get('/admin/categories')
  t.match(page.body, `data-category-id="${id}"`)
  t.notMatch(page.body, 'Add category')
  t.notMatch((await partner.get(`/admin/categories/${id}`)).body, 'Save category')
  t.equal((await partner.post('/admin/categories', { name: 'Mole', slug: 'mole' })).statusCode, 403)
  t.equal((await partner.post(`/admin/categories/${id}`, { name: 'Mole', slug: 'shirts' })).statusCode, 403)
  t.equal((await partner.post(`/admin/categories/${id}/delete`)).statusCode, 403)
  t.match((await api(app, client, 'GET', '/v1/categories')).json(), { meta: { total: 1 }, data: [{ name: 'Shirts' }] })
})

t.test('a partner granted editor adds a category to the client\'s store', async (t) => {
  const { app, client, partner } = await partnerInClientStore('editor')
  await partner.get('/admin/categories')
  t.equal((await partner.post('/admin/categories', { name: 'Shirts', slug: 'shirts' })).statusCode, 303)
  t.match((await api(app, client, 'GET', '/v1/categories')).json().data, [{ name: 'Shirts' }])
})

t.test('another organization can neither see nor change a store\'s category', async (t) => {
  const app = await sharedApp()
  const victim = await makeTenant(app)
  const id = await category(app, victim, 'Secret line', 'secret-line')
  const { agent } = await signedInOwner(app)
  t.notMatch((await agent.get('/admin/categories')).body, 'Secret line')
  t.equal((await agent.get(`/admin/categories/${id}`)).statusCode, 404)
  t.equal((await agent.post(`/admin/categories/${id}`, { name: 'Mine now', slug: 'mine' })).statusCode, 404)
  t.equal((await agent.get(`/admin/categories/${id}/delete`)).statusCode, 404)
  t.equal((await agent.post(`/admin/categories/${id}/delete`)).statusCode, 404)
  t.match((await api(app, victim, 'GET', `/v1/categories/${id}`)).json(), { name: 'Secret line' })
})

t.test('a lapsed store\'s categories page refuses as the API does', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { status: 'lapsed' })
  const agent = new Agent(app)
  await agent.signIn(tenant.owner.email, tenant.owner.password)
  const page = await agent.get('/admin/categories')
  t.equal(page.statusCode, 403)
  t.match(page.body, 'subscription')
  t.equal((await agent.post('/admin/categories', { name: 'Shirts', slug: 'shirts' })).statusCode, 403)
  t.equal((await app.db('categories').where({ store_env_id: tenant.storeId })).length, 0)
})

t.test('a category form sent without its CSRF token changes nothing', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/categories')
  t.equal((await agent.post('/admin/categories', { name: 'Shirts', slug: 'shirts', _csrf: '' })).statusCode, 403)
  t.equal((await app.db('categories').where({ store_env_id: tenant.storeId })).length, 0)
})
