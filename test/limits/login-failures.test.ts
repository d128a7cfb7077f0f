import t from 'tap'
import * as oidc from 'openid-client'
import { build } from '../helper.js'
import { makeTenant } from '../factories.js'
import { Agent } from '../admin/agent.js'
import { Browser, csrfOf, discover, makeClient, REDIRECT_URI, serve } from '../oauth/oauth-helper.js'

/** service-api has no number for it; session.ts locks an email after 5 failures in 15 minutes. */
const EMAIL_LOCK = 5
const CONCURRENT = 20

function tally (statuses: number[]) {
  return statuses.reduce<Record<number, number>>((seen, s) => ({ ...seen, [s]: (seen[s] ?? 0) + 1 }), {})
}

t.test('concurrent wrong passwords for one email at /admin/login: only five are checked, the rest get 429', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const agent = new Agent(app)
  await agent.get('/admin/login')
  const tries = Array.from(
    { length: CONCURRENT },
    () => agent.post('/admin/login', { email: tenant.owner.email, password: 'not-the-password' })
  )
  const statuses = (await Promise.all(tries)).map((r) => r.statusCode)
  t.same(tally(statuses), { 401: EMAIL_LOCK, 429: CONCURRENT - EMAIL_LOCK })
})

t.test('concurrent wrong passwords for one email at the OAuth login: only five are checked, the rest get 429', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const config = await discover(base, await makeClient(app))
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'read',
    code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256'
  })
  const browser = new Browser()
  const page = await browser.follow(url.href)
  const form = { _csrf: csrfOf(page.text), email: tenant.owner.email, password: 'not-the-password' }
  const tries = Array.from({ length: CONCURRENT }, () => browser.request(page.url + '/login', { form }))
  const statuses = (await Promise.all(tries)).map((r) => r.status)
  t.same(tally(statuses), { 401: EMAIL_LOCK, 429: CONCURRENT - EMAIL_LOCK })
})

t.test('a successful sign-in does not count toward the lock-out', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const agent = new Agent(app)
  await agent.get('/admin/login')
  const attempt = (password: string) => agent.post('/admin/login', { email: tenant.owner.email, password })
  for (let i = 0; i < EMAIL_LOCK - 1; i++) t.equal((await attempt('not-the-password')).statusCode, 401)
  t.equal((await attempt(tenant.owner.password)).statusCode, 303)
  t.equal((await attempt('not-the-password')).statusCode, 401, 'the fifth failure is still checked')
  t.equal((await attempt(tenant.owner.password)).statusCode, 429, 'then the email is locked, even for the right password')
})

t.test('every spelling of an email that signs into the account spends its one lock-out budget', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const agent = new Agent(app)
  await agent.get('/admin/login')
  const email = tenant.owner.email
  // MariaDB's default collation finds the account under each of these (case and accents ignored).
  const spellings = [
    email.toUpperCase(),
    email.replace('example', 'exámple'),
    email.replace('example', 'exa\u0301mple'),
    ` ${email} `,
    email
  ]
  for (const spelling of spellings) {
    t.equal((await agent.post('/admin/login', { email: spelling, password: 'not-the-password' })).statusCode, 401, spelling)
  }
  t.equal(
    (await agent.post('/admin/login', { email: email.replace('example', 'exámple'), password: tenant.owner.password })).statusCode,
    429
  )
  t.equal(
    (await agent.post('/admin/login', { email, password: tenant.owner.password })).statusCode,
    429,
    'the account is locked under every spelling'
  )
})
