import t from 'tap'
import { call } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { contentApp as sharedApp } from './app.js'

/** One valid body per content resource, and a change to it (docs/contract/resources.md#content). */
const RESOURCES = {
  faqs: { event: 'faq', body: { question: 'How long is delivery?', answer: 'Three days.' }, patch: { status: 'published' } },
  categories: { event: 'category', body: { name: 'Shirts', slug: 'shirts' }, patch: { name: 'Tops' } },
  'web-pages': { event: 'web_page', body: { url: 'https://shop.example/p/shirt', type: 'product' }, patch: { title: 'Shirt' } },
  galleries: { event: 'gallery', body: { name: 'Customer photos' }, patch: { status: 'published' } }
} as const

async function setup () {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const as = (key = tenant.key, store = tenant.storeId) => (method: string, url: string, payload?: unknown) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key, store, payload: payload as object })
  return { app, tenant, api: as(), as }
}

for (const [resource, spec] of Object.entries(RESOURCES)) {
  t.test(`${resource}: create, read, list, change and delete, each change with its event`, async (t) => {
    const { api } = await setup()
    const created = await api('POST', `/${resource}`, spec.body)
    t.equal(created.statusCode, 201, created.body)
    const id = created.json().id
    t.match((await api('GET', `/${resource}/${id}`)).json(), { ...spec.body, id })
    t.equal((await api('GET', `/${resource}`)).json().meta.total, 1)
    const changed = await api('PATCH', `/${resource}/${id}`, spec.patch)
    t.match(changed.json(), spec.patch)
    t.equal((await api('PATCH', `/${resource}/${id}`, spec.patch)).statusCode, 200, 'the same change again changes nothing')
    t.equal((await api('DELETE', `/${resource}/${id}`)).statusCode, 204)
    t.equal((await api('GET', `/${resource}/${id}`)).json().code, 'not_found')
    const types = (await api('GET', '/events?limit=100')).json().events.map((e: { type: string }) => e.type)
    t.same(types, [`${spec.event}.created`, `${spec.event}.updated`, `${spec.event}.deleted`])
  })
}

t.test('updatedSince lists rows changed at or after the instant, oldest change first with the id breaking ties', async (t) => {
  const { app, api } = await setup()
  const ids: string[] = []
  for (let i = 0; i < 3; i++) ids.push((await api('POST', '/faqs', { question: `Q${i}`, answer: 'A' })).json().id)
  await app.db('faqs').whereIn('id', ids).update({ updated_at: Date.parse('2026-01-01T00:00:00Z') })
  await app.db('faqs').where({ id: ids[1] }).update({ updated_at: Date.parse('2026-02-01T00:00:00Z') })
  const all = (await api('GET', '/faqs')).json().data.map((f: { id: string }) => f.id)
  t.same(all, [...[ids[0], ids[2]].sort(), ids[1]])
  const since = (await api('GET', '/faqs?updatedSince=2026-02-01T00:00:00Z')).json()
  t.same(since.data.map((f: { id: string }) => f.id), [ids[1]])
  t.equal(since.meta.total, 1)
})

t.test('list limits are clamped to 100 and updatedSince outside 1970–9999 is refused', async (t) => {
  const { api } = await setup()
  t.equal((await api('GET', '/categories?limit=1000')).json().meta.limit, 100)
  for (const bad of ['10000-01-01T00:00:00Z', '1969-12-31T23:59:59Z', 'yesterday']) {
    const res = await api('GET', `/placements?updatedSince=${bad}`)
    t.equal(res.statusCode, 400, bad)
    t.equal(res.json().code, 'invalid_request')
  }
})

t.test('over-long, empty, unknown and oddly encoded fields are 400 invalid_request, never 500', async (t) => {
  const { api } = await setup()
  const bad: Array<[string, unknown]> = [
    ['/faqs', { question: 'q'.repeat(501), answer: 'a' }],
    ['/faqs', { question: 'q', answer: 'a'.repeat(10_001) }],
    ['/faqs', { question: 'q', answer: 'a', position: 1e12 }],
    ['/faqs', { question: '\uD800', answer: 'a' }],
    ['/faqs', { question: 'q', answer: 'a', extra: true }],
    ['/categories', { name: 'x', slug: 'Not A Slug' }],
    ['/categories', { name: '', slug: 'x' }],
    ['/web-pages', { url: 'javascript:alert(1)', type: 'custom' }],
    ['/web-pages', { url: `https://shop.example/${'a'.repeat(2048)}`, type: 'custom' }],
    ['/web-pages', { url: 'https://shop.example/', type: 'blog' }],
    ['/galleries', { name: 'g'.repeat(201) }],
    ['/placements', { webPageId: 'page_x', widget: 'carousel', selector: '#x' }],
    ['/placements', { webPageId: 'page_x', widget: 'reviews', selector: '#x', settings: { colour: 'red' } }]
  ]
  for (const [url, body] of bad) {
    const res = await api('POST', url, body)
    t.equal(res.statusCode, 400, `${url} ${JSON.stringify(body).slice(0, 60)}`)
    t.equal(res.json().code, 'invalid_request')
  }
  const emoji = await api('POST', '/faqs', { question: '😀'.repeat(500), answer: 'a' })
  t.equal(emoji.statusCode, 201, '500 four-byte characters fit the column')
  t.equal((await api('PATCH', '/faqs/faq_nope', {})).statusCode, 400, 'an empty change is refused')
})

t.test('a category tree refuses cycles, unknown parents, duplicate slugs and deleting a parent', async (t) => {
  const { api } = await setup()
  const root = (await api('POST', '/categories', { name: 'Clothes', slug: 'clothes' })).json()
  const child = (await api('POST', '/categories', { name: 'Shirts', slug: 'shirts', parentId: root.id })).json()
  const grandchild = (await api('POST', '/categories', { name: 'Linen', slug: 'linen', parentId: child.id })).json()
  t.equal(grandchild.parentId, child.id)
  const cycle = await api('PATCH', `/categories/${root.id}`, { parentId: grandchild.id })
  t.equal(cycle.statusCode, 409)
  t.equal(cycle.json().code, 'conflict')
  t.equal((await api('PATCH', `/categories/${root.id}`, { parentId: root.id })).statusCode, 409, 'not its own parent')
  t.equal((await api('POST', '/categories', { name: 'X', slug: 'x', parentId: 'cat_nope' })).json().code, 'invalid_request')
  t.equal((await api('POST', '/categories', { name: 'Again', slug: 'shirts' })).statusCode, 409)
  t.equal((await api('DELETE', `/categories/${child.id}`)).statusCode, 409, 'it still has a subcategory')
  t.equal((await api('PATCH', `/categories/${grandchild.id}`, { parentId: null })).json().parentId, null)
  t.equal((await api('DELETE', `/categories/${child.id}`)).statusCode, 204)
})

/** Each category's parent as stored, followed up from every category: true when some walk comes back to its start. */
async function hasCycle (api: (method: string, url: string) => Promise<{ json: () => any }>) {
  const parents = new Map<string, string | null>(
    (await api('GET', '/categories?limit=100')).json().data.map((c: { id: string, parentId: string | null }) => [c.id, c.parentId])
  )
  return [...parents.keys()].some((start) => {
    let at = parents.get(start) ?? null
    for (let steps = 0; at !== null && steps <= parents.size; steps++) {
      if (at === start) return true
      at = parents.get(at) ?? null
    }
    return false
  })
}

/** Four rounds of a race, each with a key of its own: the budget is not what is tested. */
async function rounds (work: (api: ReturnType<Awaited<ReturnType<typeof setup>>['as']>, round: number) => Promise<void>) {
  const { as, tenant, app } = await setup()
  for (let round = 0; round < 4; round++) await work(as((await makeKey(app, tenant, 'admin')).secret), round)
}

t.test('two categories moved under each other at the same moment: one move is made, the other refused, no cycle', async (t) => {
  await rounds(async (api, round) => {
    const a = (await api('POST', '/categories', { name: 'A', slug: `a-${round}` })).json()
    const b = (await api('POST', '/categories', { name: 'B', slug: `b-${round}` })).json()
    const answers = await Promise.all([
      api('PATCH', `/categories/${a.id}`, { parentId: b.id }),
      api('PATCH', `/categories/${b.id}`, { parentId: a.id })
    ])
    t.same(answers.map((r) => r.statusCode).sort(), [200, 409], `round ${round}`)
    t.notOk(await hasCycle(api), `round ${round}: no cycle`)
  })
})

t.test('a category moved under a parent deleted at the same moment: either the move or the delete is refused, never a child of nothing', async (t) => {
  await rounds(async (api, round) => {
    const parent = (await api('POST', '/categories', { name: 'P', slug: `p-${round}` })).json()
    const child = (await api('POST', '/categories', { name: 'C', slug: `c-${round}` })).json()
    const [moved, deleted] = await Promise.all([
      api('PATCH', `/categories/${child.id}`, { parentId: parent.id }),
      api('DELETE', `/categories/${parent.id}`)
    ])
    t.same(
      [moved.statusCode, deleted.statusCode].filter((code) => code >= 300).length,
      1,
      `round ${round}: ${moved.statusCode}, ${deleted.statusCode}`
    )
    const stored = (await api('GET', `/categories/${child.id}`)).json().parentId
    t.equal(
      stored === null ? null : (await api('GET', `/categories/${stored}`)).statusCode,
      stored === null ? null : 200,
      `round ${round}: the parent exists`
    )
  })
})

t.test('an FAQ filed under a category deleted at the same moment is refused, or loses the category with it', async (t) => {
  await rounds(async (api, round) => {
    const category = (await api('POST', '/categories', { name: 'K', slug: `k-${round}` })).json()
    const [filed, deleted] = await Promise.all([
      api('POST', '/faqs', { question: 'Fit?', answer: 'True to size.', categoryId: category.id }),
      api('DELETE', `/categories/${category.id}`)
    ])
    t.equal(deleted.statusCode, 204, `round ${round}`)
    if (filed.statusCode === 201) {
      t.equal((await api('GET', `/faqs/${filed.json().id}`)).json().categoryId, null, `round ${round}: the FAQ names no deleted category`)
    } else t.equal(filed.json().code, 'invalid_request', `round ${round}: refused`)
  })
})

t.test('a product filed under a category deleted at the same moment is refused, or loses the category with it', async (t) => {
  await rounds(async (api, round) => {
    const category = (await api('POST', '/categories', { name: 'K', slug: `kp-${round}` })).json()
    const [filed, deleted] = await Promise.all([
      api('PUT', '/products', { products: [{ platformProductId: `p-${round}`, title: 'Shirt', categoryIds: [category.id] }] }),
      api('DELETE', `/categories/${category.id}`)
    ])
    t.equal(deleted.statusCode, 204, `round ${round}`)
    if (filed.json().upserted === 1) {
      t.same((await api('GET', `/products/p-${round}`)).json().categoryIds, [], `round ${round}: the product names no deleted category`)
    } else t.match(filed.json().errors, [{ code: 'invalid_item', message: /categoryIds/ }], `round ${round}: refused`)
  })
})

t.test('a placement made on a page deleted at the same moment is refused with 400, or goes with the page', async (t) => {
  await rounds(async (api, round) => {
    const page = (await api('POST', '/web-pages', { url: `https://shop.example/p/race-${round}`, type: 'product' })).json().id
    const [placed, deleted] = await Promise.all([
      api('POST', '/placements', { webPageId: page, widget: 'reviews', selector: '#reviews' }),
      api('DELETE', `/web-pages/${page}`)
    ])
    t.equal(deleted.statusCode, 204, `round ${round}`)
    if (placed.statusCode === 201) {
      t.equal((await api('GET', `/placements/${placed.json().id}`)).statusCode, 404, `round ${round}: gone with its page`)
    } else t.equal(placed.json().code, 'invalid_request', `round ${round}: ${placed.statusCode}`)
  })
})

t.test('deleting a web page deletes its placements, each with its placement.deleted event', async (t) => {
  const { api } = await setup()
  const page = (await api('POST', '/web-pages', { url: 'https://shop.example/p/gone', type: 'product' })).json().id
  const ids = await Promise.all(
    ['#a', '#b'].map(async (selector) => (await api('POST', '/placements', { webPageId: page, widget: 'summary', selector })).json().id)
  )
  t.equal((await api('DELETE', `/web-pages/${page}`)).statusCode, 204)
  for (const id of ids) t.equal((await api('GET', `/placements/${id}`)).statusCode, 404)
  const deleted = (await api('GET', '/events?limit=100')).json().events.filter((e: { type: string }) => e.type === 'placement.deleted').map(
    (e: { data: { id: string } }) => e.data.id
  )
  t.same(deleted.sort(), [...ids].sort())
})

t.test('the same change sent three times at once is made once: one updated event per resource', async (t) => {
  const { api } = await setup()
  for (const [resource, spec] of Object.entries(RESOURCES)) {
    const id = (await api('POST', `/${resource}`, spec.body)).json().id
    const answers = await Promise.all([1, 2, 3].map(() => api('PATCH', `/${resource}/${id}`, spec.patch)))
    t.same(answers.map((r) => r.statusCode), [200, 200, 200], resource)
  }
  const types = (await api('GET', '/events?limit=100')).json().events.map((e: { type: string }) => e.type).filter((type: string) =>
    type.endsWith('.updated')
  )
  t.same(types.sort(), Object.values(RESOURCES).map((spec) => `${spec.event}.updated`).sort())
})

t.test('two writes of one slug, or of one page URL, at the same moment: one succeeds, the others get the resource\'s own 409', async (t) => {
  const { api } = await setup()
  for (
    const [resource, body, message] of [
      ['categories', { name: 'Shirts', slug: 'same-moment' }, /already has the slug "same-moment"/],
      ['web-pages', { url: 'https://shop.example/p/same-moment', type: 'product' }, /already has a web page for/]
    ] as const
  ) {
    const answers = await Promise.all([1, 2, 3].map(() => api('POST', `/${resource}`, body)))
    t.same(answers.map((r) => r.statusCode).sort(), [201, 409, 409], resource)
    for (const refused of answers.filter((r) => r.statusCode === 409)) t.match(refused.json(), { code: 'conflict', message })
    t.equal((await api('GET', `/${resource}`)).json().meta.total, 1, `one ${resource} row`)
  }
  const ids = await Promise.all(['a', 'b'].map(async (slug) => (await api('POST', '/categories', { name: slug, slug })).json().id))
  const renamed = await Promise.all(ids.map((id) => api('PATCH', `/categories/${id}`, { slug: 'both-at-once' })))
  t.same(renamed.map((r) => r.statusCode).sort(), [200, 409], 'two renames to one slug: one wins')
})

t.test('products carry categoryIds; an unknown one fails the item and a deleted category leaves its products and FAQs', async (t) => {
  const { api } = await setup()
  const cat = (await api('POST', '/categories', { name: 'Shirts', slug: 'shirts' })).json()
  const upsert = await api('PUT', '/products', {
    products: [{ platformProductId: 'p1', categoryIds: [cat.id] }, { platformProductId: 'p2', categoryIds: ['cat_nope'] }]
  })
  t.match(upsert.json(), { upserted: 1, failed: 1, errors: [{ index: 1, code: 'invalid_item' }] })
  t.same((await api('GET', '/products/p1')).json().categoryIds, [cat.id])
  const faq = (await api('POST', '/faqs', { question: 'Q', answer: 'A', categoryId: cat.id })).json()
  t.equal((await api('POST', '/faqs', { question: 'Q', answer: 'A', categoryId: 'cat_nope' })).json().code, 'invalid_request')
  t.equal((await api('DELETE', `/categories/${cat.id}`)).statusCode, 204)
  t.same((await api('GET', '/products/p1')).json().categoryIds, [])
  t.equal((await api('GET', `/faqs/${faq.id}`)).json().categoryId, null)
})

t.test('a web page url is unique per store however it is written, and a placement needs a page of the store', async (t) => {
  const { api } = await setup()
  const page = (await api('POST', '/web-pages', { url: 'https://shop.example/p/shirt/', type: 'product' })).json()
  t.equal(page.url, 'https://shop.example/p/shirt')
  const again = await api('POST', '/web-pages', { url: 'https://SHOP.example/p/shirt?utm=x#top', type: 'product' })
  t.equal(again.statusCode, 409)
  t.equal((await api('POST', '/placements', { webPageId: 'page_nope', widget: 'reviews', selector: '#r' })).json().code, 'invalid_request')
  const placement = await api('POST', '/placements', {
    webPageId: page.id,
    widget: 'reviews',
    selector: '#r',
    settings: { productId: 'p1' }
  })
  t.equal(placement.statusCode, 201)
  t.match(placement.json(), { enabled: true, settings: { productId: 'p1' } })
  t.equal((await api('DELETE', `/web-pages/${page.id}`)).statusCode, 204)
  t.equal((await api('GET', `/placements/${placement.json().id}`)).statusCode, 404, 'a page takes its placements with it')
})

t.test('a viewer reads content but cannot write it; a key scoped to faqs cannot touch galleries', async (t) => {
  const { app, tenant, as } = await setup()
  const viewer = await makeKey(app, tenant, 'viewer')
  t.equal((await as(viewer.secret)('GET', '/faqs')).statusCode, 200)
  t.equal((await as(viewer.secret)('POST', '/faqs', { question: 'Q', answer: 'A' })).json().code, 'role_read_only')
  const scoped = await makeKey(app, tenant, 'editor', ['faqs:write'])
  t.equal((await as(scoped.secret)('POST', '/faqs', { question: 'Q', answer: 'A' })).statusCode, 201)
  t.equal((await as(scoped.secret)('GET', '/galleries')).json().code, 'insufficient_scope')
})

t.test('one store can neither read nor change another store\'s content', async (t) => {
  const { app, api } = await setup()
  const other = await makeTenant(app)
  const theirs = (method: string, url: string, payload?: unknown) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: other.key, store: other.storeId, payload: payload as object })
  for (const [resource, spec] of Object.entries(RESOURCES)) {
    const id = (await api('POST', `/${resource}`, spec.body)).json().id
    t.equal((await theirs('GET', `/${resource}/${id}`)).statusCode, 404, resource)
    t.equal((await theirs('PATCH', `/${resource}/${id}`, spec.patch)).statusCode, 404, resource)
    t.equal((await theirs('DELETE', `/${resource}/${id}`)).statusCode, 404, resource)
    t.equal((await theirs('GET', `/${resource}`)).json().meta.total, 0, resource)
  }
  const { tenant } = await setup()
  const cross = await call(app, { method: 'GET', url: '/v1/faqs', key: other.key, store: tenant.storeId })
  t.equal(cross.json().code, 'store_env_not_found', 'a key of one organization names another\'s store in vain')
})
