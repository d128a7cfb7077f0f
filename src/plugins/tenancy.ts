import fp from 'fastify-plugin'
import { accessFor, isOrgManagement, roleAllows, roleRank, scopesAllow } from '../lib/permissions.js'
import { errors } from '../errors.js'
import { storeHeader } from './auth.js'
import { PLANS, type StoreEnv } from '../types.js'

declare module 'fastify' {
  interface FastifyRequest { store: StoreEnv | null }
}

/**
 * After authentication: the store environment (service-api.md section 5.1), then role and scopes (5.2-5.5),
 * then subscription and plan (section 3). The order decides which refusal a caller sees first.
 */
export default fp(async (app) => {
  const stores = app.services.stores
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

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config
    const credential = request.credential
    if (config.auth !== 'credential' || !credential) return

    if (config.storeScoped !== false) {
      const id = storeHeader(request)
      if (!id) throw new errors.StoreEnvRequired()
      const store = await storeOf(id, request.storeMarker)
      const inGrant = !credential.storeIds || credential.storeIds.includes(id)
      if (!store || store.orgId !== credential.orgId || !inGrant) throw new errors.StoreEnvNotFound()
      request.store = store
    }

    const resource = config.resource!
    const access = accessFor(request.method)
    const verdict = roleAllows(credential.role, resource, access)
    if (verdict === 'read_only') throw new errors.RoleReadOnly()
    if (verdict === 'forbidden' || (config.minRole && roleRank(credential.role) < roleRank(config.minRole))) {
      throw new errors.RoleForbidden(resource)
    }
    if (!config.scopeExempt && !scopesAllow(credential.scopes, resource, access)) {
      throw new errors.InsufficientScope(access, resource)
    }
    // After role and scopes, so keys and tokens with the same role and scopes see the same refusals first; a token
    // is bound to a person and chosen stores, and nothing it creates may outlive its connection (decisions.md 2).
    if (credential.type === 'oauth' && isOrgManagement(request.routeOptions.url ?? '', access)) {
      throw new errors.CredentialNotAllowed()
    }

    const store = request.store
    if (!store) return
    const billingRead = resource === 'billing' && access === 'read'
    if (store.subscriptionStatus === 'lapsed' && !config.subscriptionExempt && !billingRead) {
      throw new errors.SubscriptionExpired()
    }
    if (config.plan && PLANS.indexOf(store.plan) < PLANS.indexOf(config.plan)) {
      throw new errors.PlanRequired(config.plan)
    }
  })
}, { name: 'tenancy', dependencies: ['auth', 'services'] })
