import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type Provider from 'oidc-provider'
import type { JWK } from 'jose'
import { loadSigningKeys } from './keys.js'
import { createProvider } from './provider.js'
import { providerRequestEnded, providerRequestStarted } from './request-context.js'
import { consentService } from './consent.service.js'
import { oauthCredentialResolver } from './credential.js'
import interactionRoutes from './interaction.routes.js'
import { defineModule } from '../src/lib/module.js'

declare module 'fastify' {
  interface FastifyInstance {
    oidc: Provider
    /** The keys the provider signs with and publishes at /oauth/jwks, the one it signs with first. */
    oidcSigningKeys: JWK[]
  }
}

/**
 * The embedded OpenID Connect provider (docs/contract/oauth.md#provider-storage-and-keys), mounted under /oauth; the
 * login/consent screens are fastify routes under /oauth/interaction; its access tokens become a second credential type
 * of the auth pipeline.
 */
const provider = fp(async (app) => {
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
      connections.revokedByProvider(grantId).catch((err: Error) =>
        app.log.error({ err: { message: err.message } }, 'recording a revoked grant failed')
      )
    }
  })
  provider.on(
    'server_error',
    (_ctx, err: Error) => app.log.error({ err: { message: err.message, stack: err.stack } }, 'oauth provider error')
  )
  app.decorate('oidc', provider)
  app.decorate('oidcSigningKeys', keys)

  await app.register(mountProvider, { callback: provider.callback(), published: new URL(app.config.publicUrl) })
  await app.register(interactionRoutes, {
    provider,
    clients,
    audience,
    consent: consentService({ db, provider, people, stores, grants, clients, audit, clock, audience, clientStores: partners.clientStores })
  })
  app.registerCredentialResolver(
    oauthCredentialResolver({ issuer, audience, clock, grants, keys, reloadKeys: () => loadSigningKeys(db, secretKey, clock()) })
  )
}, { name: 'oauth', dependencies: ['pipeline', 'session', 'services'] })
export default provider

export const manifest = defineModule({ name: 'oauth', routes: [{ plugin: provider }] })

const PROVIDER_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/**
 * The provider answers every /oauth URL but the interaction screens, through one wildcard route that hands it the
 * raw request. (A root-level middleware, @fastify/middie, would put a matching step in front of every request of
 * the service.) The route's own context leaves the body unread: the provider parses what it accepts itself.
 */
async function mountProvider (
  scope: FastifyInstance,
  { callback, published }: { callback: (req: IncomingMessage, res: ServerResponse) => unknown, published: URL }
) {
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('*', (_request, _payload, done) => {
    done(null)
  })
  const handler = (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.raw as IncomingMessage & { originalUrl?: string }
    if (raw.url?.startsWith('/oauth/interaction/')) return reply.callNotFound()
    reply.hijack()
    // Headers set on the reply are dropped by hijack(): the request id every answer carries is set on the raw one.
    reply.raw.setHeader('x-request-id', request.id)
    // The provider derives its endpoint URLs from the request; pin them to PUBLIC_URL whatever Host a client sends
    // (no poisoned discovery documents), and give it the client IP fastify already resolved (TRUST_PROXY rules).
    raw.headers['x-forwarded-host'] = published.host
    raw.headers['x-forwarded-proto'] = published.protocol.slice(0, -1)
    raw.headers['x-forwarded-for'] = request.ip
    // Mounted as a middleware would be: the provider sees its own path and finds its mount path in originalUrl.
    raw.originalUrl = raw.url
    raw.url = raw.url!.slice('/oauth'.length) || '/'
    providerRequestStarted()
    reply.raw.once('close', providerRequestEnded)
    callback(raw, reply.raw)
  }
  scope.route({ method: PROVIDER_METHODS, url: '/oauth', schema: { hide: true }, handler })
  scope.route({ method: PROVIDER_METHODS, url: '/oauth/*', schema: { hide: true }, handler })
}
