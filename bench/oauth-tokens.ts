/**
 * OAuth connections for the benches, minted through the provider's own models (the HTTP dance is tested elsewhere)
 * and signed as the service signs: a viewer connection with scope `read` to one store, and on request the refresh
 * token a chain of refresh grants starts from.
 */
import type { FastifyInstance } from 'fastify'
import { systemClock } from '../src/lib/clock.js'
import { oauthClients } from '../src/modules/connectors/connections/oauth-clients.repository.js'
import { ACCESS_TOKEN_TTL_S, apiScopes } from '../oauth/provider.js'
import { ACCESS_TOKEN_ALG } from '../oauth/keys.js'

export interface Owner { orgId: string, personId: string, storeId: string }

/** Registers a client named `name` and answers it with a function that mints one connection per call. */
export async function oauthMinter (app: FastifyInstance, owner: Owner, name: string) {
  const audience = `${app.config.publicUrl}/v1`
  const created = await oauthClients(app.db, systemClock).create({ name, redirectUris: ['http://127.0.0.1:9/callback'] })
  const client = (await app.oidc.Client.find(created.clientId))!
  const accountId = owner.personId

  async function mint (withRefresh = false): Promise<{ access: string, refresh: string | null }> {
    const grant = new app.oidc.Grant({ accountId, clientId: created.clientId })
    grant.addOIDCScope('offline_access')
    grant.addResourceScope(audience, 'read')
    const grantId = await grant.save()
    await app.services.grants.insert({
      id: grantId,
      orgId: owner.orgId,
      personId: accountId,
      clientId: created.clientId,
      role: 'viewer',
      scopes: ['read'],
      storeIds: [owner.storeId],
      createdAt: Date.now()
    })
    const at = new app.oidc.AccessToken({ accountId, client, grantId, scope: 'read', gty: 'authorization_code' })
    at.resourceServer = new app.oidc.ResourceServer(audience, {
      scope: apiScopes().join(' '),
      audience,
      accessTokenTTL: ACCESS_TOKEN_TTL_S,
      accessTokenFormat: 'jwt',
      jwt: { sign: { alg: ACCESS_TOKEN_ALG } }
    })
    const access = await at.save()
    if (!withRefresh) return { access, refresh: null }
    const rt = new app.oidc.RefreshToken({
      accountId,
      client,
      grantId,
      scope: 'offline_access read',
      resource: audience,
      gty: 'authorization_code'
    })
    return { access, refresh: await rt.save() }
  }

  return { clientId: created.clientId, clientSecret: created.clientSecret!, mint }
}
