import type { Test } from 'tap'
import { decodeJwt } from 'jose'
import type { FastifyInstance } from 'fastify'
import { call } from '../helper.js'
import { addMember, makeTenant, type Tenant } from '../factories.js'
import { connect, makeClient, serve } from './oauth-helper.js'

/** Helpers for the tests of who may revoke which connection. */
export function grantOf (accessToken: string): string {
  return decodeJwt(accessToken).grant_id as string
}

export async function stillWorks (app: FastifyInstance, tenant: Tenant, accessToken: string): Promise<boolean> {
  return (await call(app, { method: 'GET', url: '/v1/account/stores', key: accessToken, store: tenant.storeId })).statusCode === 200
}

/** An editor of the tenant who connected the same client for themself. */
export async function editorConnection (app: FastifyInstance, base: string, tenant: Tenant, client: { id: string, secret: string | null }) {
  const editor = await addMember(app, tenant, 'editor')
  const { tokens } = await connect({
    base,
    client,
    person: editor,
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'editor',
    scope: 'connectors:write offline_access'
  })
  return { editor, accessToken: tokens.access_token }
}

/** A fresh tenant whose only connection is an editor's own (one OAuth dance, not two: the flow is the slow part). */
export async function editorConnected (t: Test) {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  return { app, tenant, ...await editorConnection(app, base, tenant, await makeClient(app)) }
}
