import t from 'tap'
import { loggedApp, sharedApp } from '../helper.js'
import { addMember, makeTenant } from '../factories.js'
import { Agent, signedInMember, signedInOwner } from './agent.js'

function inviteLink (body: string): string {
  const match = /<code id="flash-link">http:\/\/127\.0\.0\.1:3000(\/admin\/invitations\/[0-9A-Za-z]{40})<\/code>/.exec(body)
  if (!match) throw new Error('no invitation link on the page')
  return match[1]
}

t.test('an invitation link lets a new person choose a password and join, once', async (t) => {
  const app = await sharedApp()
  const { tenant, agent: owner } = await signedInOwner(app)
  await owner.get('/admin/members')
  const sent = await owner.post('/admin/members/invite', { email: 'New.Person@Example.test', role: 'editor' })
  t.equal(sent.statusCode, 303)
  const link = inviteLink((await owner.get('/admin/members')).body)

  const invitee = new Agent(app)
  const page = await invitee.get(link)
  t.equal(page.statusCode, 200)
  t.match(page.body, 'new.person@example.test')
  const short = await invitee.post(link, { name: 'New Person', password: 'short' })
  t.equal(short.statusCode, 400)
  const joined = await invitee.post(link, { name: 'New Person', password: 'a-long-enough-password' })
  t.equal(joined.statusCode, 303)
  t.equal((await invitee.get('/admin/members')).statusCode, 200, 'signed in as the new member')
  const person = await app.db('people').where({ email: 'new.person@example.test' }).first()
  t.equal((await app.db('memberships').where({ org_id: tenant.orgId, person_id: person.id }).first()).role, 'editor')

  t.equal((await new Agent(app).get(link)).statusCode, 404, 'the link works once')
  const again = new Agent(app)
  await again.get('/admin/login')
  t.equal((await again.post(link, { password: 'a-long-enough-password' })).statusCode, 404)
})

t.test('inviting a member does not write the invitation token to the log', async (t) => {
  const { app, lines } = await loggedApp(t)
  const { agent: owner } = await signedInOwner(app)
  await owner.get('/admin/members')
  t.equal((await owner.post('/admin/members/invite', { email: 'quiet@example.test', role: 'editor' })).statusCode, 303)
  const token = inviteLink((await owner.get('/admin/members')).body).split('/').pop()!
  t.ok(lines.length > 0, 'the app did log')
  t.notOk(lines.some((line) => line.includes(token)), 'no log line carries the token')
})

t.test('opening and accepting an invitation link does not write its token to the log', async (t) => {
  const { app, lines } = await loggedApp(t)
  const { agent: owner } = await signedInOwner(app)
  await owner.get('/admin/members')
  await owner.post('/admin/members/invite', { email: 'opener@example.test', role: 'editor' })
  const link = inviteLink((await owner.get('/admin/members')).body)
  const token = link.split('/').pop()!
  const invitee = new Agent(app)
  t.equal((await invitee.get(link)).statusCode, 200)
  t.equal((await invitee.post(link, { password: 'a-long-enough-password' })).statusCode, 303)
  t.ok(lines.some((line) => line.includes('/admin/invitations/')), 'the requests are logged')
  t.notOk(lines.some((line) => line.includes(token)), 'without the token')
})

t.test('a person who already has an account accepts with their own password', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const owner = new Agent(app)
  await owner.signIn(tenant.owner.email, tenant.owner.password)
  await owner.get('/admin/members')
  await owner.post('/admin/members/invite', { email: other.owner.email, role: 'admin' })
  const link = inviteLink((await owner.get('/admin/members')).body)
  const invitee = new Agent(app)
  t.match((await invitee.get(link)).body, 'enter your password')
  t.equal((await invitee.post(link, { password: 'wrong-password-here' })).statusCode, 400)
  t.equal((await invitee.post(link, { password: other.owner.password })).statusCode, 303)
  const stores = await invitee.get('/admin/stores')
  t.match(stores.body, 'name="org"', 'the person can now switch between two organizations')
})

t.test('an invitation can be withdrawn before it is used', async (t) => {
  const app = await sharedApp()
  const { agent: owner } = await signedInOwner(app)
  await owner.get('/admin/members')
  await owner.post('/admin/members/invite', { email: 'late@example.test', role: 'editor' })
  const page = await owner.get('/admin/members')
  const link = inviteLink(page.body)
  const id = /\/admin\/members\/invitations\/(inv_\w+)\/revoke/.exec(page.body)![1]
  t.equal((await owner.post(`/admin/members/invitations/${id}/revoke`)).statusCode, 303)
  t.equal((await new Agent(app).get(link)).statusCode, 404)
})

t.test('an admin changes a member\'s role, and the audit log records it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const editor = await addMember(app, tenant, 'editor')
  const { agent } = await signedInMember(app, tenant, 'admin')
  await agent.get('/admin/members')
  t.equal((await agent.post(`/admin/members/${editor.id}/role`, { role: 'admin' })).statusCode, 303)
  t.equal((await app.db('memberships').where({ person_id: editor.id }).first()).role, 'admin')
  const log = await agent.get('/admin/audit-log?action=member.role_changed')
  t.match(log.body, `person:${editor.id}`)
  t.notMatch(log.body, 'title="api_key.created"', 'the filter keeps other actions out')
  t.match((await agent.get('/admin/audit-log')).body, 'title="api_key.created"', 'unfiltered, they are listed')
})

t.test('the last owner cannot be demoted', async (t) => {
  const app = await sharedApp()
  const { tenant, agent: owner } = await signedInOwner(app)
  await owner.get('/admin/members')
  const res = await owner.post(`/admin/members/${tenant.owner.id}/role`, { role: 'admin' })
  t.equal(res.statusCode, 409)
  t.match(res.body, 'last owner')
  t.equal((await app.db('memberships').where({ person_id: tenant.owner.id }).first()).role, 'owner')
})
