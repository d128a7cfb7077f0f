import t from 'tap'
import type { Test } from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { signedInMember, signedInOwner, type Agent } from './agent.js'

/** The admin's review incentives pages (issue 16): create, edit, delete an incentive and fill its code pool. */

const api = async (tenant: Tenant, method: 'GET' | 'POST', url: string, payload?: object) =>
  call(await sharedApp(), { method, url, key: tenant.key, store: tenant.storeId, payload })
const incentives = async (tenant: Tenant) =>
  (await api(tenant, 'GET', '/v1/review-incentives')).json().data as Array<Record<string, unknown>>
const couponIncentive = async (tenant: Tenant, codes: string[] = []) => {
  const created = (await api(tenant, 'POST', '/v1/review-incentives', { type: 'coupon', verifiedOnly: false })).json() as { id: string }
  if (codes.length > 0) await api(tenant, 'POST', `/v1/review-incentives/${created.id}/codes`, { codes })
  return created.id
}

/** A member whose role is viewer: people are invited as editors at least, but a partner's grant can be read-only. */
async function signedInViewer (tenant: Tenant) {
  const app = await sharedApp()
  const { agent, member } = await signedInMember(app, tenant, 'editor')
  await app.db('memberships').where({ org_id: tenant.orgId, person_id: member.id }).update({ role: 'viewer' })
  return agent
}

async function owner () {
  const { tenant, agent } = await signedInOwner(await sharedApp())
  await agent.get('/admin/review-incentives')
  return { tenant, agent }
}

const createdId = (res: { headers: Record<string, unknown> }) =>
  /\/admin\/review-incentives\/(rin_[A-Za-z0-9]+)$/.exec(String(res.headers.location))![1]

t.test('a coupon incentive is created with every rule from the form', async (t) => {
  const { tenant, agent } = await owner()
  const res = await agent.post('/admin/review-incentives', {
    type: 'coupon',
    points: '',
    minRating: '4',
    requiresMedia: 'on',
    verifiedOnly: 'on'
  })
  t.equal(res.statusCode, 303)
  const id = createdId(res)
  t.match((await api(tenant, 'GET', `/v1/review-incentives/${id}`)).json(), {
    type: 'coupon',
    points: null,
    minRating: 4,
    requiresMedia: true,
    verifiedOnly: true
  })
})

t.test('a points incentive is created with its points and unticked boxes as false', async (t) => {
  const { tenant, agent } = await owner()
  const res = await agent.post('/admin/review-incentives', { type: 'points', points: '150', minRating: '' })
  t.equal(res.statusCode, 303)
  t.match(await incentives(tenant), [{ type: 'points', points: 150, minRating: null, requiresMedia: false, verifiedOnly: false }])
  t.match((await agent.get(res.headers.location as string)).body, 'Incentive created.')
})

t.test('a refused incentive shows why on the page, keeps what was typed and creates nothing', async (t) => {
  const { tenant, agent } = await owner()
  const cases: Array<[Record<string, string>, string]> = [
    [{ type: 'points', points: '', minRating: '3', verifiedOnly: 'on' }, 'points: required for a points incentive'],
    [{ type: 'coupon', points: '5', minRating: '' }, 'a coupon incentive gives a code, not points'],
    [{ type: 'coupon', points: '', minRating: '6' }, 'Minimum rating: a whole number from 1 to 5'],
    [{ type: 'points', points: '0', minRating: '' }, 'Points: a whole number from 1 to 1,000,000,000'],
    [{ type: 'points', points: '2.5', minRating: '' }, 'Points: a whole number'],
    [{ type: 'gift', points: '', minRating: '' }, 'Choose a reward']
  ]
  for (const [form, message] of cases) {
    const res = await agent.post('/admin/review-incentives', form)
    t.equal(res.statusCode, 400, message)
    t.match(res.body, message)
    t.match(res.body, `name="points" min="1" max="1000000000" step="1" value="${form.points}"`, 'the typed points are kept')
    t.match(res.body, `name="minRating" min="1" max="5" step="1" value="${form.minRating}"`, 'the typed rating is kept')
  }
  t.match((await agent.post('/admin/review-incentives', cases[0][0])).body, /name="verifiedOnly" checked/)
  t.same(await incentives(tenant), [])
})

t.test('an incentive\'s rules are changed on its page', async (t) => {
  const { tenant, agent } = await owner()
  const created = (await api(tenant, 'POST', '/v1/review-incentives', {
    type: 'points',
    points: 10,
    minRating: 4,
    requiresMedia: true,
    verifiedOnly: true
  })).json()
  const page = await agent.get(`/admin/review-incentives/${created.id}`)
  t.match(page.body, 'value="10"')
  t.match(page.body, /name="requiresMedia" checked/)
  const res = await agent.post(`/admin/review-incentives/${created.id}`, { points: '25', minRating: '', verifiedOnly: 'on' })
  t.equal(res.statusCode, 303)
  t.match((await api(tenant, 'GET', `/v1/review-incentives/${created.id}`)).json(), {
    points: 25,
    minRating: null,
    requiresMedia: false,
    verifiedOnly: true
  })
})

t.test('a refused change shows why, keeps what was typed and changes nothing', async (t) => {
  const { tenant, agent } = await owner()
  const created = (await api(tenant, 'POST', '/v1/review-incentives', { type: 'points', points: 10, minRating: 4, verifiedOnly: true }))
    .json()
  await agent.get(`/admin/review-incentives/${created.id}`)
  const noPoints = await agent.post(`/admin/review-incentives/${created.id}`, { points: '', minRating: '2' })
  t.equal(noPoints.statusCode, 400)
  t.match(noPoints.body, 'points: required for a points incentive')
  t.match(noPoints.body, 'name="minRating" min="1" max="5" step="1" value="2"')
  const badRating = await agent.post(`/admin/review-incentives/${created.id}`, { points: '10', minRating: '0' })
  t.equal(badRating.statusCode, 400)
  t.match(badRating.body, 'Minimum rating: a whole number from 1 to 5')
  t.match((await api(tenant, 'GET', `/v1/review-incentives/${created.id}`)).json(), {
    points: 10,
    minRating: 4,
    verifiedOnly: true,
    updatedAt: created.updatedAt
  })
})

t.test('an incentive is deleted only after its confirmation page', async (t) => {
  const { tenant, agent } = await owner()
  const id = await couponIncentive(tenant, ['A-1', 'A-2'])
  const confirm = await agent.get(`/admin/review-incentives/${id}/delete`)
  t.equal(confirm.statusCode, 200)
  t.match(confirm.body, 'Delete this coupon incentive?')
  t.match(confirm.body, 'Its 2 unused codes are deleted with it.')
  t.match(confirm.body, `action="/admin/review-incentives/${id}/delete"`)
  t.equal((await api(tenant, 'GET', `/v1/review-incentives/${id}`)).statusCode, 200, 'the confirmation page alone deletes nothing')
  const res = await agent.post(`/admin/review-incentives/${id}/delete`)
  t.equal(res.statusCode, 303)
  t.equal(res.headers.location, '/admin/review-incentives')
  t.equal((await api(tenant, 'GET', `/v1/review-incentives/${id}`)).statusCode, 404)
})

t.test('codes pasted one per line go into the pool and the page shows how many are left', async (t) => {
  const { tenant, agent } = await owner()
  const id = await couponIncentive(tenant, ['OLD-1'])
  await agent.get(`/admin/review-incentives/${id}`)
  const res = await agent.post(`/admin/review-incentives/${id}/codes`, { codes: 'NEW-1\r\n\r\n  NEW-2  \nOLD-1\n' })
  t.equal(res.statusCode, 303)
  t.match((await api(tenant, 'GET', `/v1/review-incentives/${id}`)).json().pool, { available: 3, issued: 0 })
  const page = await agent.get(`/admin/review-incentives/${id}`)
  t.match(page.body, '2 codes added. 1 already in the pool, skipped. 3 available.')
  t.match(page.body, '<strong data-pool-available>3</strong> codes left')
})

t.test('a code pasted twice or longer than 100 characters refuses the whole paste with the reason', async (t) => {
  const { tenant, agent } = await owner()
  const id = await couponIncentive(tenant)
  await agent.get(`/admin/review-incentives/${id}`)
  const twice = await agent.post(`/admin/review-incentives/${id}/codes`, { codes: 'C-1\nC-2\nC-1' })
  t.equal(twice.statusCode, 400)
  t.match(twice.body, '&quot;C-1&quot; is pasted twice')
  t.match(twice.body, '>C-1\nC-2\nC-1</textarea>', 'the paste is kept')
  const long = await agent.post(`/admin/review-incentives/${id}/codes`, { codes: `C-3\n${'x'.repeat(101)}` })
  t.equal(long.statusCode, 400)
  t.match(long.body, 'A code has at most 100 characters')
  t.match((await api(tenant, 'GET', `/v1/review-incentives/${id}`)).json().pool, { available: 0 })
})

t.test('an empty pool is a visible warning on both pages, not an error', async (t) => {
  const { tenant, agent } = await owner()
  const id = await couponIncentive(tenant)
  const list = await agent.get('/admin/review-incentives')
  t.equal(list.statusCode, 200)
  t.match(list.body, /class="flash warning"[^>]*>A coupon incentive has no code left/)
  const page = await agent.get(`/admin/review-incentives/${id}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, 'The pool is empty: a review that qualifies gets no code until codes are added.')
  await api(tenant, 'POST', `/v1/review-incentives/${id}/codes`, { codes: ['FULL-1'] })
  t.notMatch((await agent.get(`/admin/review-incentives/${id}`)).body, 'The pool is empty')
  t.notMatch((await agent.get('/admin/review-incentives')).body, 'no code left')
})

/** Every change the pages offer, as [url, form] for the incentive `id`. */
const changes = (id: string): Array<[string, Record<string, string>]> => [
  ['/admin/review-incentives', { type: 'coupon', points: '', minRating: '' }],
  [`/admin/review-incentives/${id}`, { points: '', minRating: '5' }],
  [`/admin/review-incentives/${id}/codes`, { codes: 'FORGED-1' }],
  [`/admin/review-incentives/${id}/delete`, {}]
]

async function unchanged (t: Test, tenant: Tenant, id: string) {
  const all = await incentives(tenant)
  t.equal(all.length, 1, 'no incentive was created or deleted')
  t.match(all[0], { id, minRating: null, pool: { available: 1 } })
}

t.test('a viewer sees the incentives read-only and every change is refused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const id = await couponIncentive(tenant, ['KEPT-1'])
  const viewer: Agent = await signedInViewer(tenant)
  for (const url of ['/admin/review-incentives', `/admin/review-incentives/${id}`]) {
    const page = await viewer.get(url)
    t.equal(page.statusCode, 200, url)
    t.notMatch(page.body, 'action="/admin/review-incentives', `${url} offers no change`)
  }
  t.equal((await viewer.get(`/admin/review-incentives/${id}/delete`)).statusCode, 403)
  for (const [url, form] of changes(id)) t.equal((await viewer.post(url, form)).statusCode, 403, url)
  await unchanged(t, tenant, id)
})

t.test('an editor changes incentives, as the API lets editors write review-incentives', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { agent } = await signedInMember(app, tenant, 'editor')
  await agent.get('/admin/review-incentives')
  const res = await agent.post('/admin/review-incentives', { type: 'points', points: '5', minRating: '' })
  t.equal(res.statusCode, 303)
  t.match(await incentives(tenant), [{ type: 'points', points: 5 }])
})

t.test('every incentive form needs the CSRF token', async (t) => {
  const { tenant, agent } = await owner()
  const id = await couponIncentive(tenant, ['KEPT-1'])
  for (const [url, form] of changes(id)) t.equal((await agent.post(url, { ...form, _csrf: '' })).statusCode, 403, url)
  await unchanged(t, tenant, id)
})
