import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { sharedApp } from '../helper.js'
import { addMember, asPerson, makeTenant, type Tenant } from '../factories.js'
import { Agent } from '../admin/agent.js'

/**
 * The last-owner rule under concurrency: two owners who demote or remove each other at the same moment must not
 * both succeed, whichever entrance they use. Each round is a fresh organization with two owners whose requests are
 * sent together; the one whose change comes second finds the other already gone and gets 409 conflict. On SQLite the
 * writes take turns anyway; on MySQL only a lock makes them.
 */
const ROUNDS = 6

const ownersOf = async (app: FastifyInstance, tenant: Tenant) =>
  (await app.db('memberships').where({ org_id: tenant.orgId, role: 'owner' })).length

async function twoOwners (app: FastifyInstance) {
  const tenant = await makeTenant(app)
  const second = await addMember(app, tenant, 'owner')
  return { tenant, a: tenant.owner, b: second }
}

t.test('two owners removing each other through the API at once: one 204, one 409 conflict, one owner left', async (t) => {
  const app = await sharedApp()
  for (let round = 1; round <= ROUNDS; round++) {
    const { tenant, a, b } = await twoOwners(app)
    const remove = (by: { id: string }, whom: string) => asPerson(app, tenant, by, { method: 'DELETE', url: `/v1/account/members/${whom}` })
    const answers = await Promise.all([remove(a, b.id), remove(b, a.id)])
    t.same(answers.map((res) => res.statusCode).sort(), [204, 409], `round ${round}`)
    t.equal(answers.find((res) => res.statusCode === 409)?.json().code, 'conflict')
    t.equal(await ownersOf(app, tenant), 1, `round ${round}: the organization keeps an owner`)
  }
})

/**
 * A form sent by one of two owners at once: carried out (back to the members page), or refused. The page reads the
 * sender's role when it starts: if the other's change committed before that, the sender is an admin by then (403) or
 * no member at all (sent away); if after, the last-owner rule refuses it (409).
 */
function outcome (res: { statusCode: number, headers: Record<string, unknown> }): 'done' | 'refused' {
  if (res.statusCode === 303 && res.headers.location === '/admin/members') return 'done'
  return [303, 403, 409].includes(res.statusCode) ? 'refused' : `unexpected ${res.statusCode}` as 'refused'
}

async function signedIn (app: FastifyInstance, person: { email: string, password: string }) {
  const agent = new Agent(app)
  await agent.signIn(person.email, person.password)
  await agent.get('/admin/members')
  return agent
}

t.test('two owners demoting each other in the admin application at once: one done, one 409, one owner left', async (t) => {
  const app = await sharedApp()
  for (let round = 1; round <= ROUNDS; round++) {
    const { tenant, a, b } = await twoOwners(app)
    const [byA, byB] = await Promise.all([signedIn(app, a), signedIn(app, b)])
    const answers = await Promise.all([
      byA.post(`/admin/members/${b.id}/role`, { role: 'admin' }),
      byB.post(`/admin/members/${a.id}/role`, { role: 'admin' })
    ])
    t.same(answers.map(outcome).sort(), ['done', 'refused'], `round ${round}`)
    t.equal(await ownersOf(app, tenant), 1, `round ${round}: the organization keeps an owner`)
  }
})

t.test('two owners removing each other in the admin application at once: one done, one 409, one owner left', async (t) => {
  const app = await sharedApp()
  for (let round = 1; round <= ROUNDS; round++) {
    const { tenant, a, b } = await twoOwners(app)
    const [byA, byB] = await Promise.all([signedIn(app, a), signedIn(app, b)])
    const answers = await Promise.all([byA.post(`/admin/members/${b.id}/remove`), byB.post(`/admin/members/${a.id}/remove`)])
    t.same(answers.map(outcome).sort(), ['done', 'refused'], `round ${round}`)
    t.equal(await ownersOf(app, tenant), 1, `round ${round}: the organization keeps an owner`)
  }
})

t.test('an ownership transfer racing an admin\'s demotion of its recipient leaves the organization an owner', async (t) => {
  const app = await sharedApp()
  for (let round = 1; round <= ROUNDS; round++) {
    const tenant = await makeTenant(app)
    const recipient = await addMember(app, tenant, 'admin')
    const admin = await addMember(app, tenant, 'admin')
    const byAdmin = await signedIn(app, admin)
    const answers = await Promise.all([
      asPerson(app, tenant, { id: tenant.owner.id }, {
        method: 'POST',
        url: '/v1/orgs/current/transfer-ownership',
        payload: { personId: recipient.id }
      }),
      byAdmin.post(`/admin/members/${recipient.id}/role`, { role: 'editor' })
    ])
    const statuses = answers.map((res) => res.statusCode)
    t.equal(await ownersOf(app, tenant), 1, `round ${round}: the organization keeps an owner (${statuses.join(', ')})`)
  }
})
