import t from 'tap'
import { build, manualClock } from '../helper.js'
import { addMember, makeTenant } from '../factories.js'
import { as, owner, person } from './support.js'

/**
 * docs/contract/api-conventions.md#incremental-sync: `updatedSince` on every list, the changed entries oldest change
 * first.
 */

async function grants (t: Parameters<typeof build>[0]) {
  const clock = manualClock(Date.parse('2026-11-20T10:00:00Z'))
  const app = await build(t, { clock })
  const client = await makeTenant(app)
  const first = await makeTenant(app)
  const second = await makeTenant(app)
  const grant = async (partnerOrgId: string, role: string) => {
    const res = await as(app, owner(client), 'POST', '/orgs/current/partners', undefined, { partnerOrgId, role })
    t.ok(res.statusCode < 300, res.body)
  }
  await grant(first.orgId, 'viewer')
  clock.advance(60_000)
  await grant(second.orgId, 'viewer')
  clock.advance(60_000)
  await grant(first.orgId, 'editor')
  return { app, client, first, second }
}

t.test('a client\'s partners listed with updatedSince are those granted or changed since, oldest change first', async (t) => {
  const { app, client, first, second } = await grants(t)
  const list = async (query: string) => (await as(app, owner(client), 'GET', `/orgs/current/partners${query}`)).json()
  const since = await list('?updatedSince=2026-11-20T10:01:00.000Z')
  t.same(since.data.map((g: { partnerOrgId: string }) => g.partnerOrgId), [second.orgId, first.orgId])
  t.equal(since.meta.total, 2)
  t.match(since.data[1], { role: 'editor', updatedAt: '2026-11-20T10:02:00.000Z' })
  t.same((await list('?updatedSince=2026-11-20T10:02:00.001Z')).data, [])
  t.equal((await list('')).meta.total, 2, 'without it, every grant')
})

t.test('a partner\'s clients listed with updatedSince are the grants made or changed since', async (t) => {
  const { app, client, first, second } = await grants(t)
  const member = await addMember(app, first, 'admin')
  const list = async (query: string) => (await as(app, person(first.orgId, member.id, 'admin'), 'GET', `/partner/clients${query}`)).json()
  t.match((await list('?updatedSince=2026-11-20T10:02:00.000Z')).data, [{
    orgId: client.orgId,
    role: 'editor',
    grantedAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:02:00.000Z'
  }])
  t.same((await list('?updatedSince=2026-11-20T10:03:00.000Z')).data, [])
  const otherMember = await addMember(app, second, 'admin')
  t.same(
    (await as(app, person(second.orgId, otherMember.id, 'admin'), 'GET', '/partner/clients?updatedSince=2026-11-20T10:02:00.000Z')).json()
      .data,
    [],
    'the second partner\'s grant is older'
  )
})

t.test('updatedSince on the partner lists that is not a date is a 400 invalid_request', async (t) => {
  const { app, client } = await grants(t)
  const res = await as(app, owner(client), 'GET', '/orgs/current/partners?updatedSince=10000-01-01T00:00:00Z')
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'invalid_request')
})
