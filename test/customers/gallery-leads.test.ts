import t from 'tap'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { contentApp } from '../content/app.js'

/** A tenant with a published gallery; `lead` sends its form from the storefront. */
async function store () {
  const app = await contentApp()
  const tenant = await makeTenant(app)
  const api = (method: string, url: string, payload?: object) =>
    call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload })
  const gallery = (await api('POST', '/galleries', { name: 'Worn by you', status: 'published' })).json()
  const lead = async (email: string, name?: string) => {
    const res = await storefront(app, {
      url: `/v1/galleries/${gallery.id}/leads`,
      store: tenant.storeId,
      payload: { email, consent: true, ...(name ? { name } : {}) }
    })
    t.equal(res.statusCode, 201, res.body)
  }
  const customers = async () => (await api('GET', '/customers')).json().data
  const customerEvents = async () =>
    (await app.db('events').where({ store_env_id: tenant.storeId }).where('type', 'like', 'customer.%').orderBy('id').pluck(
      'type'
    )) as string[]
  return { app, tenant, api, gallery, lead, customers, customerEvents }
}

t.test('a lead from a new address becomes a customer without a platform id, named from the lead', async (t) => {
  const { api, lead, customers, customerEvents } = await store()
  await lead('Ann.Lee@Example.test', 'Ann van Lee')
  const [customer] = await customers()
  t.match(customer, {
    id: /^cus_/,
    platformCustomerId: null,
    email: 'ann.lee@example.test',
    firstName: 'Ann',
    lastName: 'van Lee',
    phone: null,
    birthday: null
  })
  t.same((await api('GET', `/customers/${customer.id}`)).json(), customer)
  t.same(await customerEvents(), ['customer.created'])
})

t.test('another lead of the same address renames that customer, and one without a name leaves it', async (t) => {
  const { lead, customers, customerEvents } = await store()
  await lead('bo@example.test', 'Bo')
  await lead('BO@example.test', 'Bo Quinn')
  await lead('bo@example.test')
  const list = await customers()
  t.equal(list.length, 1, 'one customer per address')
  t.match(list[0], { platformCustomerId: null, firstName: 'Bo', lastName: 'Quinn' })
  t.same(await customerEvents(), ['customer.created', 'customer.updated'])
})

t.test('a lead updates the platform\'s customer of that address only where the platform gave no name', async (t) => {
  const { api, lead, customers, customerEvents } = await store()
  await api('PUT', '/customers', {
    customers: [{ platformCustomerId: 'named', email: 'named@example.test', firstName: 'Cy' }, {
      platformCustomerId: 'unnamed',
      email: 'unnamed@example.test'
    }]
  })
  await lead('named@example.test', 'Somebody Else')
  await lead('unnamed@example.test', 'Di Ross')
  const byId = Object.fromEntries((await customers()).map((c: { platformCustomerId: string }) => [c.platformCustomerId, c]))
  t.same(Object.keys(byId).sort(), ['named', 'unnamed'], 'no customer without a platform id is made')
  t.match(byId.named, { firstName: 'Cy', lastName: null })
  t.match(byId.unnamed, { firstName: 'Di', lastName: 'Ross' })
  t.same(await customerEvents(), ['customer.created', 'customer.created', 'customer.updated'])
})

t.test('a platform sync with a lead\'s address takes that customer over: one customer, same id, now with the platform id', async (t) => {
  const { api, lead, customers, customerEvents } = await store()
  await lead('hal@example.test', 'Hal')
  const [made] = await customers()
  const batch = [{ platformCustomerId: 'p-hal', email: 'HAL@example.test', firstName: 'Harold' }]
  t.same((await api('PUT', '/customers', { customers: batch })).json(), { received: 1, upserted: 1, failed: 0, errors: [] })
  const list = await customers()
  t.equal(list.length, 1)
  t.match(list[0], {
    id: made.id,
    platformCustomerId: 'p-hal',
    email: 'HAL@example.test',
    firstName: 'Harold',
    lastName: null,
    createdAt: made.createdAt
  })
  await api('PUT', '/customers', { customers: batch })
  t.same(await customerEvents(), ['customer.created', 'customer.updated'], 'then an identical re-send changes nothing')
})

t.test('in one batch only one item takes a lead\'s customer over; another with the same address is a new customer', async (t) => {
  const { api, lead, customers } = await store()
  await lead('ivy@example.test', 'Ivy')
  const [made] = await customers()
  await api('PUT', '/customers', {
    customers: [{ platformCustomerId: 'p-b', email: 'ivy@example.test' }, { platformCustomerId: 'p-a', email: 'ivy@example.test' }]
  })
  const byPlatform = Object.fromEntries(
    (await customers()).map((c: { platformCustomerId: string, id: string }) => [c.platformCustomerId, c.id])
  )
  t.same(Object.keys(byPlatform).sort(), ['p-a', 'p-b'])
  t.equal(byPlatform['p-a'], made.id, 'the first in key order, as the batch is written')
})

t.test('a suppressed address becomes a customer and stays suppressed: the lead\'s consent does not lift it', async (t) => {
  const { api, lead, customers } = await store()
  t.equal((await api('POST', '/email-suppressions', { email: 'gone@example.test', reason: 'unsubscribed' })).statusCode, 201)
  await lead('gone@example.test', 'Ed')
  t.match(await customers(), [{ email: 'gone@example.test', platformCustomerId: null }])
  t.match((await api('GET', '/email-suppressions')).json().data, [{ email: 'gone@example.test', reason: 'unsubscribed' }])
})

t.test('a customer made from a lead can be erased like any other', async (t) => {
  const { api, gallery, lead, customers } = await store()
  await lead('fay@example.test', 'Fay')
  const [customer] = await customers()
  t.equal((await api('DELETE', `/customers/${customer.id}`)).statusCode, 204)
  t.same(await customers(), [])
  t.equal((await api('GET', `/galleries/${gallery.id}/leads`)).json().meta.total, 0)
})

t.test('a lead makes a customer of its own store only', async (t) => {
  const { app, lead } = await store()
  const other = await makeTenant(app)
  await lead('gus@example.test', 'Gus')
  const theirs = await call(app, { method: 'GET', url: '/v1/customers', key: other.key, store: other.storeId })
  t.equal(theirs.json().meta.total, 0)
})
