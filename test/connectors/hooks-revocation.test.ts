import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { decodeJwt } from 'jose'
import { call } from '../helper.js'
import { addMember, makeTenant, type Tenant } from '../factories.js'
import { appendEvent, deliverUntil, receiver, testWorker } from '../webhooks/support.js'
import { connect, makeClient, serve } from '../oauth/oauth-helper.js'

/**
 * docs/contract/tenancy-and-roles.md#org-level-authority and docs/contract/oauth.md#grants: a revoked connection leaves
 * nothing behind, its REST hooks included.
 */

const SCOPE = 'reviews:read webhooks:write offline_access'

async function hookOverConnection (t: Test) {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const member = await addMember(app, tenant, 'admin')
  const flow = await connect({
    base,
    client: await makeClient(app),
    person: member,
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'editor',
    scope: SCOPE
  })
  const rx = await receiver(t)
  const hook = await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: flow.tokens.access_token,
    store: tenant.storeId,
    payload: { targetUrl: rx.url, event: 'review.created' }
  })
  t.equal(hook.statusCode, 201)
  return { app, tenant, member, rx, grantId: decodeJwt(flow.tokens.access_token).grant_id as string }
}

async function deliveredAfterwards (t: Test, app: FastifyInstance, tenant: Tenant, rx: { received: unknown[] }) {
  await appendEvent(app, tenant, 'review.created', { id: 'rev_after', rating: 1, body: 'private review text' })
  await deliverUntil(testWorker(t, app, [tenant.storeId]), rx.received, 1)
  return rx.received.length
}

const hooksOf = async (app: FastifyInstance, tenant: Tenant) =>
  (await call(app, { method: 'GET', url: '/v1/connectors/hooks', key: tenant.key, store: tenant.storeId })).json().data

t.test('revoking a connection deletes the REST hooks it made, and nothing more is delivered to them', async (t) => {
  const { app, tenant, rx, grantId } = await hookOverConnection(t)
  t.equal(
    (await call(app, { method: 'DELETE', url: `/v1/connectors/connections/${grantId}`, key: tenant.key, store: tenant.storeId }))
      .statusCode,
    204
  )
  t.same(await hooksOf(app, tenant), [])
  t.equal(await deliveredAfterwards(t, app, tenant, rx), 0)
})

t.test('removing a teammate deletes the REST hooks of their connections, and nothing more is delivered to them', async (t) => {
  const { app, tenant, member, rx } = await hookOverConnection(t)
  t.equal(
    (await call(app, { method: 'DELETE', url: `/v1/account/members/${member.id}`, key: tenant.key, store: tenant.storeId })).statusCode,
    204
  )
  t.same(await hooksOf(app, tenant), [])
  t.equal(await deliveredAfterwards(t, app, tenant, rx), 0)
})

t.test('a hook made with an API key outlives the revocation of another connection', async (t) => {
  const { app, tenant, grantId } = await hookOverConnection(t)
  const rx = await receiver(t)
  await call(app, {
    method: 'POST',
    url: '/v1/connectors/hooks',
    key: tenant.key,
    store: tenant.storeId,
    payload: { targetUrl: rx.url, event: 'review.created' }
  })
  await call(app, { method: 'DELETE', url: `/v1/connectors/connections/${grantId}`, key: tenant.key, store: tenant.storeId })
  t.same((await hooksOf(app, tenant)).map((h: { targetUrl: string }) => h.targetUrl), [rx.url])
  t.equal(await deliveredAfterwards(t, app, tenant, rx), 1)
})
