import t from 'tap'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { Browser, connect, makeClient, serve } from './oauth-helper.js'

t.test('a client completes authorization code + PKCE through login and consent and calls the API with the token', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const { tokens } = await connect({ base, client, person: tenant.owner, org: tenant.orgId, stores: [tenant.storeId], role: 'editor' })
  t.ok(tokens.access_token)
  t.ok(tokens.refresh_token, 'offline_access gives a refresh token without prompt=consent')
  t.equal(tokens.store_env_id, tenant.storeId)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tokens.store_env_id as string })
  t.equal(res.statusCode, 200, res.body)
})

t.test('a person already signed in to the service (eh_session) skips the password form', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const browser = new Browser()
  await connect({ base, client, person: tenant.owner, org: tenant.orgId, stores: [tenant.storeId], role: 'editor', browser })
  for (const name of [...browser.cookies.keys()]) if (name !== 'eh_session') browser.cookies.delete(name)
  t.ok(browser.cookies.has('eh_session'), 'only the shared person session is left')
  const again = await connect({
    base,
    client,
    person: { email: tenant.owner.email, password: 'not-the-password' },
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'viewer',
    browser
  })
  t.ok(again.tokens.access_token, 'connected without typing the password again')
})

t.test('the login form refuses a wrong password and shows the form again', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const err = await connect({
    base,
    client: await makeClient(app),
    person: { email: tenant.owner.email, password: 'wrong' },
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'editor'
  }).catch((e: Error) => e)
  t.match(String(err), /expected the consent page, got 401/)
})
