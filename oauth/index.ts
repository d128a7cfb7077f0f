import fp from 'fastify-plugin'
import middie from '@fastify/middie'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type Provider from 'oidc-provider'
import type { JWK } from 'jose'
import { loadSigningKeys } from './keys.js'
import { createProvider } from './provider.js'
import { consentService } from './consent.service.js'
import { oauthCredentialResolver } from './credential.js'
import interactionRoutes from './interaction.routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    oidc: Provider
    /** The keys the provider signs with and publishes at /oauth/jwks, the one it signs with first. */
    oidcSigningKeys: JWK[]
  }
}

/**
 * The embedded OpenID Connect provider (decisions.md section 10), mounted with @fastify/middie under /oauth as
 * oidc-provider documents for fastify; the login/consent screens are fastify routes under /oauth/interaction;
 * its access tokens become a second credential type of the auth pipeline.
 */
export default fp(async (app) => {
  const issuer = `${app.config.publicUrl}/oauth`
  const audience = `${app.config.publicUrl}/v1`
  const { db, clock } = app
  const { clients, grants, people, stores, audit, connections, freshness, partners } = app.services
  const secretKey = app.config.secretKey
  const keys = await loadSigningKeys(db, secretKey, clock())

  const provider = createProvider({
    issuer,
    audience,
    secretKey,
    db,
    clock,
    keys,
    clients,
    grants,
    people,
    fresh: freshness,
    onGrantRevoked: (grantId) => {
      connections.revokedByProvider(grantId).catch((err: Error) => app.log.error({ err: { message: err.message } }, 'recording a revoked grant failed'))
    }
  })
  provider.on('server_error', (_ctx, err: Error) => app.log.error({ err: { message: err.message, stack: err.stack } }, 'oauth provider error'))
  app.decorate('oidc', provider)
  app.decorate('oidcSigningKeys', keys)

  if (!app.hasDecorator('use')) await app.register(middie)
  const callback = provider.callback()
  const published = new URL(app.config.publicUrl)
  app.use('/oauth', (req: IncomingMessage & { ip?: string }, res: ServerResponse, next: () => void) => {
    if (req.url?.startsWith('/interaction/')) return next()
    // The provider derives its endpoint URLs from the request; pin them to PUBLIC_URL whatever Host a client sends
    // (no poisoned discovery documents), and give it the client IP fastify already resolved (TRUST_PROXY rules).
    req.headers['x-forwarded-host'] = published.host
    req.headers['x-forwarded-proto'] = published.protocol.slice(0, -1)
    req.headers['x-forwarded-for'] = req.ip ?? ''
    callback(req, res)
  })

  await app.register(interactionRoutes, { provider, clients, audience, consent: consentService({ db, provider, people, stores, grants, clients, audit, clock, audience, clientStores: partners.clientStores }) })
  app.registerCredentialResolver(oauthCredentialResolver({ issuer, audience, clock, grants, keys, reloadKeys: () => loadSigningKeys(db, secretKey, clock()) }))
}, { name: 'oauth', dependencies: ['auth', 'tenancy', 'session', 'services'] })
