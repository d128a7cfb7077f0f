import t from 'tap'
import { build, sharedApp } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { Agent, signedInMember } from './agent.js'

t.test('an editor cannot reach key management, and the navigation does not offer it', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { agent } = await signedInMember(app, tenant, 'editor')
  const home = await agent.get('/admin/stores')
  t.equal(home.statusCode, 200)
  t.notMatch(home.body, 'href="/admin/keys"')
  t.equal((await agent.get('/admin/keys')).statusCode, 403)
  t.equal((await agent.get('/admin/keys/new')).statusCode, 403)
  const create = await agent.post('/admin/keys', { name: 'Sneaky', role: 'viewer', mode: 'read' })
  t.equal(create.statusCode, 403)
  const { id } = await makeKey(app, tenant, 'admin')
  t.equal((await agent.post(`/admin/keys/${id}/revoke`)).statusCode, 403)
  const row = await app.db('api_keys').where({ id }).first()
  t.equal(row.revoked_at, null, 'the key is untouched')
  t.equal((await app.db('api_keys').where({ org_id: tenant.orgId, name: 'Sneaky' })).length, 0)
})

t.test('an editor cannot see the audit log nor manage members', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { agent } = await signedInMember(app, tenant, 'editor')
  t.equal((await agent.get('/admin/audit-log')).statusCode, 403)
  const members = await agent.get('/admin/members')
  t.equal(members.statusCode, 200)
  t.notMatch(members.body, 'Send invitation')
  t.equal((await agent.post('/admin/members/invite', { email: 'x@example.test', role: 'editor' })).statusCode, 403)
  t.equal((await agent.post(`/admin/members/${tenant.owner.id}/remove`)).statusCode, 403)
})

t.test('an admin cannot hand a key the owner role nor a person a role above their own', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { agent, member: admin } = await signedInMember(app, tenant, 'admin')
  const form = await agent.get('/admin/keys/new')
  t.notMatch(form.body, 'value="owner"')
  const res = await agent.post('/admin/keys', { name: 'Owner key', role: 'owner', mode: 'read' })
  t.equal(res.statusCode, 400)
  await agent.get('/admin/members')
  const invite = await agent.post('/admin/members/invite', { email: 'boss@example.test', role: 'owner' })
  t.equal(invite.statusCode, 403)
  const promote = await agent.post(`/admin/members/${admin.id}/role`, { role: 'owner' })
  t.equal(promote.statusCode, 403)
  t.equal(await app.db('memberships').where({ person_id: admin.id }).first().then((r) => r.role), 'admin')
})

t.test('a removed member is signed out on their next page', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const { agent, member: editor } = await signedInMember(app, tenant, 'editor')
  t.equal((await agent.get('/admin/members')).statusCode, 200)
  await app.db('memberships').where({ org_id: tenant.orgId, person_id: editor.id }).delete()
  const res = await agent.get('/admin/members')
  t.equal(res.statusCode, 303)
  t.equal(res.headers.location, '/admin/login')
  t.notOk(agent.cookies.has('eh_session'))
})

t.test('one organization\'s person cannot revoke another organization\'s key nor switch to its store', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  const { id } = await makeKey(app, theirs, 'admin')
  const agent = new Agent(app)
  await agent.signIn(mine.owner.email, mine.owner.password)
  await agent.get('/admin/keys')
  t.equal((await agent.get(`/admin/keys/${id}/revoke`)).statusCode, 404)
  t.equal((await agent.post(`/admin/keys/${id}/revoke`)).statusCode, 404)
  t.equal((await app.db('api_keys').where({ id }).first()).revoked_at, null)
  t.equal((await agent.post('/admin/stores/select', { store: theirs.storeId })).statusCode, 404)
  t.notMatch((await agent.get('/admin/keys')).body, id)
  t.equal((await agent.post(`/admin/members/${theirs.owner.id}/remove`)).statusCode, 404)
})

t.test('sign-in locks an email out after five wrong passwords, even for the right one', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const agent = new Agent(app)
  await agent.get('/admin/login')
  for (let i = 0; i < 5; i++) {
    const wrong = await agent.post('/admin/login', { email: tenant.owner.email, password: 'not-the-password' })
    t.equal(wrong.statusCode, 401)
  }
  const locked = await agent.post('/admin/login', { email: tenant.owner.email, password: tenant.owner.password })
  t.equal(locked.statusCode, 429)
  t.match(locked.body, /Too many failed sign-in attempts/)
  t.notOk(agent.cookies.has('eh_session'))
})

t.test('signing out ends the session', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const agent = new Agent(app)
  await agent.signIn(tenant.owner.email, tenant.owner.password)
  const cookie = agent.cookies.get('eh_session')!
  await agent.get('/admin/stores')
  t.equal((await agent.post('/admin/logout')).statusCode, 303)
  const replay = await app.inject({ method: 'GET', url: '/admin/stores', headers: { cookie: `eh_session=${cookie}` } })
  t.equal(replay.statusCode, 303, 'the old cookie no longer works')
})

t.test('sign-in only redirects to this site\'s admin or OAuth pages', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const agent = new Agent(app)
  await agent.get('/admin/login')
  const res = await agent.post('/admin/login', { email: tenant.owner.email, password: tenant.owner.password, next: '//evil.example/admin' })
  t.equal(res.headers.location, '/admin')
  const agent2 = new Agent(app)
  await agent2.get('/admin/login')
  const ok = await agent2.post('/admin/login', {
    email: tenant.owner.email,
    password: tenant.owner.password,
    next: '/oauth/interaction/abc'
  })
  t.equal(ok.headers.location, '/oauth/interaction/abc')
})

t.test('sign-in with a next that is not printable ASCII signs the person in and goes to /admin, never a 5xx', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  for (const next of ['/admin/stores?q=€', '/admin/stores?q=\ud800', '/admin/stores?q=\u0007']) {
    const agent = new Agent(app)
    await agent.get('/admin/login')
    const res = await agent.post('/admin/login', { email: tenant.owner.email, password: tenant.owner.password, next })
    t.equal(res.statusCode, 303, JSON.stringify(next))
    t.equal(res.headers.location, '/admin')
    t.ok(agent.cookies.has('eh_session'))
  }
  const kept = new Agent(app)
  await kept.get('/admin/login')
  const escaped = await kept.post('/admin/login', {
    email: tenant.owner.email,
    password: tenant.owner.password,
    next: '/admin/stores?q=%E2%82%AC'
  })
  t.equal(escaped.headers.location, '/admin/stores?q=%E2%82%AC', 'a URL as the browser sent it, escapes kept, still goes through')
})
