import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { accessFor, refusalFor, scopeLabel } from '../lib/permissions.js'
import { errors } from '../errors.js'
import { storeHeader } from './auth.js'
import { planRefusal, type FeatureOverrides } from '../features.js'
import { actorOf, type StoreEnv } from '../types.js'

declare module 'fastify' {
  interface FastifyRequest { store: StoreEnv | null }
  interface FastifyInstance {
    /** The operator's feature overrides of this request's store, kept under the store's marker as the plan check keeps them. */
    storeOverrides: (request: FastifyRequest) => Promise<FeatureOverrides>
  }
}

/**
 * After authentication: the store environment (docs/contract/tenancy-and-roles.md#organizations-and-stores), then role
 * and scopes (docs/contract/tenancy-and-roles.md#authentication), then subscription and plan
 * (docs/contract/plans-and-limits.md#plans-and-subscription). The order decides which refusal a caller sees first.
 */
export default fp(async (app) => {
  const { stores, partners, audit } = app.services
  const cache = app.credentialCache
  app.decorateRequest('store', null)

  /**
   * From memory when the store's marker, read by this request's limiter call (plugins/auth.ts), still has the value
   * it had when the store was read; otherwise from the database, read after that marker, so safe to keep under it.
   */
  async function storeOf (id: string, seen: string | null) {
    const now = app.clock()
    const held = seen === null ? undefined : cache.store(id, seen, now)
    if (held) return held
    const store = await stores.find(id)
    if (store && seen !== null) cache.keepStore(store, seen, now)
    return store
  }

  /**
   * Only routes gated on a feature ask, and under the same marker as the store: an operator's override bumps it,
   * so the next request on every instance sees the change; in between, no query.
   */
  async function overridesOf (id: string, seen: string | null) {
    const now = app.clock()
    const held = seen === null ? undefined : cache.featureOverrides(id, seen, now)
    if (held) return held
    const overrides = await app.services.features.overrides(id)
    if (seen !== null) cache.keepFeatureOverrides(id, overrides, seen, now)
    return overrides
  }

  app.decorate('storeOverrides', (request: FastifyRequest) => overridesOf(request.store!.id, request.storeMarker))

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config
    const credential = request.credential
    if (config.auth !== 'credential' || !credential) return

    if (config.storeScoped !== false) {
      const id = storeHeader(request)
      if (!id) throw new errors.StoreEnvRequired()
      const store = await storeOf(id, request.storeMarker)
      const inGrant = !credential.storeIds || credential.storeIds.includes(id)
      if (!store || !inGrant) throw new errors.StoreEnvNotFound()
      // Another organization's store: only through a partner grant (one query, on these requests only).
      if (store.orgId !== credential.orgId) {
        const acting = await partners.actingFor(credential, store)
        if (!acting) throw new errors.StoreEnvNotFound()
        request.credential = acting
      }
      request.store = store
    }

    await checkAccess(request, config)
  })

  /** Role, scopes, subscription and plan of the (possibly partner) credential the request acts with. */
  async function checkAccess (request: FastifyRequest, config: FastifyRequest['routeOptions']['config']) {
    const credential = request.credential!
    const resource = config.resource!
    const access = accessFor(request.method)
    const rule = { url: request.routeOptions.url ?? '', resource, minRole: config.minRole, scopeExempt: config.scopeExempt, scopesOf: config.scopesOf }
    const refusal = refusalFor(credential, rule, access)
    if (refusal === 'role_read_only') throw new errors.RoleReadOnly()
    if (refusal === 'role_forbidden') throw new errors.RoleForbidden(resource)
    if (refusal === 'insufficient_scope') throw new errors.InsufficientScope(access, scopeLabel(rule))
    if (refusal === 'credential_not_allowed') throw new errors.CredentialNotAllowed()

    const store = request.store
    if (!store) return
    const billingRead = resource === 'billing' && access === 'read'
    if (store.subscriptionStatus === 'lapsed' && !config.subscriptionExempt && !billingRead) {
      throw new errors.SubscriptionExpired()
    }
    if (config.plan || config.feature) {
      const overrides = config.feature ? await overridesOf(store.id, request.storeMarker) : {}
      const plan = planRefusal(store.plan, overrides, config)
      if (plan) throw new errors.PlanRequired(plan)
    }
  }

  /**
   * Every request a partner makes on a client's store, refused ones included, lands in the client's audit log with the
   * partner named (docs/contract/tenancy-and-roles.md#partner-access); written before the response leaves, so it is
   * there when it arrives.
   */
  app.addHook('onSend', async (request, reply) => {
    const credential = request.credential
    if (!credential?.partnerOrgId || !request.store) return
    await audit.record({
      orgId: request.store.orgId,
      action: 'partner.request',
      actor: actorOf(credential),
      subject: `store:${request.store.id}`,
      ip: request.ip,
      details: { partnerOrgId: credential.partnerOrgId, personId: credential.personId, method: request.method, route: request.routeOptions.url ?? null, status: reply.statusCode }
    })
  })
}, { name: 'tenancy', dependencies: ['auth', 'services'] })
