import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { Agent, partnerInClientStore, signedInOwner } from './agent.js'

/** The admin imports pages (issue 45, point 17): the list, one import with its refused items, and a new import. */

const review = (productId: string, extra: Record<string, unknown> = {}) =>
  ({ productId, rating: 5, body: 'Lovely linen.', authorName: 'Ann', writtenAt: '2025-06-01T10:00:00Z', ...extra })

async function apiImport (app: FastifyInstance, tenant: Tenant, items: unknown[]) {
  return (await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: tenant.key,
    store: tenant.storeId,
    payload: { type: 'reviews', items }
  })).json()
}

const reviewCount = async (app: FastifyInstance, storeId: string) =>
  Number((await app.db('reviews').where({ store_env_id: storeId }).count({ n: '*' }))[0].n)

t.test('a pasted import file imports its reviews and opens the import with its refused items', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/imports')
  const file = JSON.stringify({ type: 'reviews', items: [review('shirt'), review('shirt', { rating: 9 })] })
  const res = await agent.post('/admin/imports', { json: file })
  t.equal(res.statusCode, 303)
  t.match(res.headers.location, /^\/admin\/imports\/imp_/)
  const page = await agent.get(String(res.headers.location))
  t.match(page.body, '1 of 2 reviews imported; 1 refused, listed below.')
  t.match(
    page.body,
    /<td data-label="Item">#1<\/td>\s*<td data-label="Product">shirt<\/td>\s*<td data-label="Code"><code>invalid_item<\/code>/
  )
  t.match(page.body, 'rating: must be &lt;= 5')
  t.equal(await reviewCount(app, tenant.storeId), 1)
})

t.test('the list shows each import with its status, counts and date, newest first', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const first = await apiImport(app, tenant, [review('a')])
  const second = await apiImport(app, tenant, [review('a'), { productId: 'b' }])
  const page = (await agent.get('/admin/imports')).body
  t.ok(page.indexOf(second.id) < page.indexOf(first.id), 'newest first')
  const row = page.split(`data-import-id="${second.id}"`)[1].split('</tr>')[0]
  t.match(row, '<span class="badge partial">Partial</span>', 'one of two refused: partial')
  t.match(row, '<td data-label="Received">2</td>')
  t.match(row, '<td data-label="Imported">1</td>')
  t.match(row, '<td data-label="Refused">1</td>')
  t.match(row, `<td data-label="Created">${second.createdAt.replace('T', ' ').replace(/:\d{2}\.\d{3}Z$/, ' UTC')}</td>`)
})

t.test('a status the service names is shown as it is named, not from a fixed list', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const done = await apiImport(app, tenant, [{ productId: 'nothing valid' }])
  // Another status the service may come to use: the pages show whatever it answers.
  await app.db('imports').where({ id: done.id }).update({ status: 'failed' })
  t.match((await agent.get('/admin/imports')).body, '<span class="badge failed">Failed</span>')
  t.match((await agent.get(`/admin/imports/${done.id}`)).body, /<span class="badge failed" data-import-status>Failed<\/span>/)
})

t.test('a file that is not an import of reviews is refused on the form with what was pasted', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/imports')
  const cases: Array<[string, string]> = [
    ['{ "type": "reviews", "items": [', 'This is not valid JSON.'],
    ['[{ "productId": "a" }]', 'The file must be one JSON object { &quot;type&quot;: &quot;reviews&quot;, &quot;items&quot;: [ … ] }'],
    ['{ "type": "products", "items": [] }', 'type must be &quot;reviews&quot;'],
    [JSON.stringify({ type: 'reviews', items: Array.from({ length: 1001 }, () => review('a')) }), 'A batch holds at most 1000 items']
  ]
  for (const [json, message] of cases) {
    const res = await agent.post('/admin/imports', { json })
    t.equal(res.statusCode, 400, message)
    t.match(res.body, message)
    if (json.length < 100) t.match(res.body, json.replace(/"/g, '&quot;'), 'what was pasted stays in the form')
  }
  t.equal((await app.db('imports').where({ store_env_id: tenant.storeId })).length, 0)
})

t.test('a partner granted viewer sees the client\'s imports but cannot start one', async (t) => {
  const { app, client, partner } = await partnerInClientStore('viewer')
  const done = await apiImport(app, client, [review('a')])
  const page = await partner.get('/admin/imports')
  t.match(page.body, `data-import-id="${done.id}"`)
  t.notMatch(page.body, 'Import reviews</button>')
  t.equal((await partner.get(`/admin/imports/${done.id}`)).statusCode, 200)
  t.equal((await partner.post('/admin/imports', { json: JSON.stringify({ type: 'reviews', items: [review('a')] }) })).statusCode, 403)
  t.equal(await reviewCount(app, client.storeId), 1)
})

t.test('another organization can neither list nor open a store\'s import', async (t) => {
  const app = await sharedApp()
  const victim = await makeTenant(app)
  const done = await apiImport(app, victim, [review('a')])
  const { agent } = await signedInOwner(app)
  t.notMatch((await agent.get('/admin/imports')).body, done.id)
  t.equal((await agent.get(`/admin/imports/${done.id}`)).statusCode, 404)
})

t.test('a lapsed store\'s imports pages refuse as the API does, and nothing is imported', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app, { status: 'lapsed' })
  const agent = new Agent(app)
  await agent.signIn(tenant.owner.email, tenant.owner.password)
  t.equal((await agent.get('/admin/imports')).statusCode, 403)
  t.equal((await agent.post('/admin/imports', { json: JSON.stringify({ type: 'reviews', items: [review('a')] }) })).statusCode, 403)
  t.equal(await reviewCount(app, tenant.storeId), 0)
})

t.test('an import form sent without its CSRF token imports nothing', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/imports')
  const res = await agent.post('/admin/imports', { json: JSON.stringify({ type: 'reviews', items: [review('a')] }), _csrf: '' })
  t.equal(res.statusCode, 403)
  t.equal(await reviewCount(app, tenant.storeId), 0)
})
