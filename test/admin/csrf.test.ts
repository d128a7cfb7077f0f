import t from 'tap'
import { build, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { Agent, signedInOwner } from './agent.js'

t.test('a form posted without the CSRF token is refused and changes nothing', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/keys/new')
  const res = await agent.post('/admin/keys', { _csrf: '', name: 'Forged', role: 'viewer', mode: 'read' })
  t.equal(res.statusCode, 403)
  t.match(res.body, /form expired/i)
  const forged = await app.db('api_keys').where({ org_id: tenant.orgId, name: 'Forged' })
  t.equal(forged.length, 0)
})

t.test('a CSRF token from another browser is refused', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const attacker = new Agent(app)
  await attacker.get('/admin/login')
  const victim = new Agent(app)
  await victim.signIn(tenant.owner.email, tenant.owner.password)
  await victim.get('/admin/keys')
  const res = await victim.post('/admin/keys', { _csrf: attacker.csrf, name: 'Forged', role: 'viewer', mode: 'read' })
  t.equal(res.statusCode, 403)
  t.equal((await app.db('api_keys').where({ org_id: tenant.orgId, name: 'Forged' })).length, 0)
})

t.test('signing in needs the CSRF token of the sign-in page', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const agent = new Agent(app)
  const res = await agent.post('/admin/login', { email: tenant.owner.email, password: tenant.owner.password })
  t.equal(res.statusCode, 403)
  t.notOk(agent.cookies.has('eh_session'))
})

t.test('session and CSRF cookies are HttpOnly and SameSite, and Secure behind https', async (t) => {
  const app = await build(t, { config: { publicUrl: 'https://admin.example' } })
  const tenant = await makeTenant(app)
  const agent = new Agent(app)
  const page = await agent.get('/admin/login')
  const csrfCookie = (page.cookies as Array<Record<string, unknown>>).find((c) => c.name === 'eh_csrf')
  t.match(csrfCookie, { httpOnly: true, sameSite: 'Strict', secure: true })
  const res = await agent.post('/admin/login', { email: tenant.owner.email, password: tenant.owner.password })
  const session = (res.cookies as Array<Record<string, unknown>>).find((c) => c.name === 'eh_session')
  t.match(session, { httpOnly: true, sameSite: 'Lax', secure: true })
})

t.test('a form the browser sent in a type the pages do not read gets a page saying so, not a server failure', async (t) => {
  const app = await sharedApp()
  const { agent } = await signedInOwner(app)
  await agent.get('/admin/keys/new')
  const res = await agent.post('/admin/keys', { name: 'Odd' }, { 'content-type': 'application/x-unknown' })
  t.equal(res.statusCode, 415)
  t.match(res.body, /could not be read/)
  t.notMatch(res.body, /Something went wrong/)
})
