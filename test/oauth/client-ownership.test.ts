import t from 'tap'
import type { FastifyInstance } from 'fastify'
import * as oidc from 'openid-client'
import { call } from '../helper.js'
import { addMember, makeTenant, type Tenant } from '../factories.js'
import { connect, connected, csrfOf, makeClient, openConsent, REDIRECT_URI, serve } from './oauth-helper.js'

/** docs/contract/oauth.md#client-ownership: a client an organization registers is that organization's alone. */

async function registerAs (app: FastifyInstance, tenant: Tenant, name = 'Zapier') {
  const res = await call(app, {
    method: 'POST',
    url: '/v1/connectors/oauth-clients',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name, redirectUris: [REDIRECT_URI] }
  })
  if (res.statusCode !== 201) throw new Error(`registering a client failed: ${res.statusCode} ${res.body}`)
  return { id: res.json().clientId as string, secret: res.json().clientSecret as string }
}

async function orgName (app: FastifyInstance, orgId: string): Promise<string> {
  return (await app.db('organizations').where({ id: orgId }).first('name')).name
}

t.test('a person outside the registering organization is refused on the consent page, which offers none of their stores', async (t) => {
  const { app, base } = await serve(t)
  const victim = await makeTenant(app)
  const impostor = await makeTenant(app)
  const client = await registerAs(app, impostor)
  const { page } = await openConsent({ base, client, person: victim.owner })
  t.equal(page.status, 403)
  t.match(page.text, `registered by ${await orgName(app, impostor.orgId)}`)
  t.match(page.text, 'only its members can connect it')
  t.notMatch(page.text, victim.storeId)
  t.notMatch(page.text, 'name="stores"')
})

t.test('a consent posted anyway for the person\'s own organization is refused and makes no grant', async (t) => {
  const { app, base } = await serve(t)
  const victim = await makeTenant(app)
  const impostor = await makeTenant(app)
  const client = await registerAs(app, impostor)
  const { page, browser } = await openConsent({ base, client, person: victim.owner })
  const done = await browser.follow(page.url.replace(/\/?$/, '/consent'), {
    form: { _csrf: csrfOf(page.text), org: victim.orgId, stores: [victim.storeId], role: 'editor' }
  })
  t.equal(done.status, 403)
  t.notOk(done.location?.startsWith(REDIRECT_URI), 'no code goes to the client')
  t.same(await app.db('oauth_grants').where({ client_id: client.id }).select('id'), [])
})

t.test('a member of both organizations is offered only the registering organization', async (t) => {
  const { app, base } = await serve(t)
  const owner = await makeTenant(app)
  const other = await makeTenant(app)
  const client = await registerAs(app, owner)
  await app.services.bootstrap.addMember(other.orgId, owner.owner.email, 'owner')
  const { page } = await openConsent({ base, client, person: owner.owner })
  t.equal(page.status, 200)
  t.match(page.text, owner.storeId)
  t.notMatch(page.text, other.storeId)
  const err = await connect({ base, client, person: owner.owner, org: other.orgId, stores: [other.storeId], role: 'editor' }).catch((
    e: Error
  ) => e)
  t.match(String(err), /expected a redirect to the client, got 403/)
  const { tokens } = await connect({ base, client, person: owner.owner, org: owner.orgId, stores: [owner.storeId], role: 'editor' })
  t.equal(tokens.store_env_id, owner.storeId, 'its own organization connects as before')
})

t.test('the consent page names the organization that registered the client', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const member = await addMember(app, tenant, 'editor')
  const client = await registerAs(app, tenant)
  const { page } = await openConsent({ base, client, person: member })
  t.equal(page.status, 200)
  t.match(page.text, `Registered by ${await orgName(app, tenant.orgId)}`)
})

t.test('an operator-registered client is offered to every organization and named as registered by this service', async (t) => {
  const { app, base } = await serve(t)
  const client = await makeClient(app)
  for (const tenant of [await makeTenant(app), await makeTenant(app)]) {
    const { page } = await openConsent({ base, client, person: tenant.owner })
    t.equal(page.status, 200)
    t.match(page.text, 'Registered by this service')
    t.match(page.text, tenant.storeId)
  }
})

t.test('a connection to an organization other than its client\'s registering one gets no new tokens and no API access', async (t) => {
  // As a connection made before clients were bound to their organization would be.
  const { app, config, tokens, tenant, client } = await connected(t)
  const impostor = await makeTenant(app)
  await app.db('oauth_clients').where({ id: client.id }).update({ org_id: impostor.orgId })
  const refused = await oidc.refreshTokenGrant(config, tokens.refresh_token!).catch((err: unknown) => err)
  t.equal((refused as oidc.ResponseBodyError).error, 'invalid_grant')
  const api = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(api.statusCode, 401)
  t.equal(api.json().code, 'invalid_credentials')
})
