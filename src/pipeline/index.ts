import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Credential } from '../types.js'
import { CredentialCache } from './credential-cache.js'
import { settleRouteConfig } from './route-config.js'
import { handOverStep } from './hand-over.js'
import { identifyCredential } from './identify-credential.js'
import { chargeAndReadMarkers } from './charge-and-read-markers.js'
import { resolveStore } from './resolve-store.js'
import { checkAccess } from './check-access.js'
import { auditPartner } from './audit-partner.js'
import { idempotencyKeyStep } from './idempotency-key.js'

export type { ClaimingResolver, CredentialResolver } from './identify-credential.js'
export type { RouteAuth } from './route-config.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The credential step of the pipeline for a route that authenticates itself (the MCP endpoint): resolves the
     * key or token (from memory when its markers are unchanged), spends the per-IP failure budget and throws 401
     * as the hook does. With `charge`, the request is also counted against the credential's rate limit.
     */
    authenticate: (request: FastifyRequest, reply: FastifyReply, options: { charge: boolean }) => Promise<Credential>
  }
}

/**
 * The request pipeline of the API, in the order its steps run (each file holds one, with its own test in
 * test/pipeline/):
 *
 *   route-config             as each route is added: `auth` and `resource` settled
 *   hand-over                a credential handed over by this process (app.injectAs) skips step 1
 *   1 identify-credential    the key or token, from memory or the resolvers; 401 for a missing or unknown one
 *   2 charge-and-read-markers  one Redis round trip: the rate limit, and the markers of credential and store
 *   3 resolve-store          x-store-env-id: the credential's store, or a client's through a partner grant
 *   4 check-access           role, scopes, then subscription, plan and feature
 *   5 audit-partner          as the answer leaves: a partner's request in the client's audit log
 *   6 idempotency-key        credentialed POSTs and PUTs, once the body is parsed: the Idempotency-Key's claim, a
 *                            repeat's kept answer; as the answer leaves, the answer kept (or, for a 5xx, the key freed)
 *
 * Routes with `auth: 'public'` (and unknown URLs under /v1) only spend the per-IP public budget; storefront routes
 * have their own step (plugins/storefront.ts: origin and per-IP limits), which runs after this one.
 */
export default fp(async (app) => {
  const cache = new CredentialCache()
  app.decorate('credentialCache', cache)
  if (app.redis) {
    const redis = app.redis
    const forget = () => cache.clear()
    redis.on('ready', forget)
    app.addHook('onClose', async () => { redis.off('ready', forget) })
  }
  app.addHook('onClose', () => cache.settled())

  app.addHook('onRoute', settleRouteConfig)
  // After the config is settled: it reads `auth`.
  app.addHook('onRoute', idempotencyKeyStep(app))

  const { injectAs, handOver } = handOverStep(app)
  const credentials = identifyCredential(app, cache)
  const markers = chargeAndReadMarkers(app, cache, credentials)
  const resolve = resolveStore(app, cache)
  const check = checkAccess(app, cache)

  async function authenticate (
    request: FastifyRequest,
    reply: FastifyReply,
    { charge }: { charge: boolean },
    handed: Credential | null = null
  ): Promise<Credential> {
    if (handed) return markers.chargeHanded(request, reply, handed)
    const identified = await credentials.identify(request, reply)
    return charge ? markers.charge(request, reply, identified) : markers.readMarkersUncharged(request, reply, identified)
  }

  app.decorate('registerCredentialResolver', credentials.registerResolver)
  app.decorate(
    'authenticate',
    (request: FastifyRequest, reply: FastifyReply, options: { charge: boolean }) => authenticate(request, reply, options)
  )
  app.decorate('injectAs', injectAs)

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config
    const auth = config.auth ?? (request.url.startsWith('/v1/') ? 'public' : 'none')
    if (auth === 'public') {
      await markers.chargePublic(request, reply)
      return
    }
    if (auth !== 'credential') return
    await authenticate(request, reply, { charge: true }, handOver(request))
    await resolve(request)
    await check(request)
  })
  app.addHook('onSend', auditPartner(app))
}, { name: 'pipeline', dependencies: ['services', 'rate-limit'] })
