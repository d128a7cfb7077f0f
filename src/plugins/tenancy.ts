import fp from 'fastify-plugin'
import { accessFor, refusalFor } from '../lib/permissions.js'
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
    const refusal = refusalFor(credential, { url: request.routeOptions.url ?? '', resource, minRole: config.minRole, scopeExempt: config.scopeExempt }, access)
    if (refusal === 'role_read_only') throw new errors.RoleReadOnly()
    if (refusal === 'role_forbidden') throw new errors.RoleForbidden(resource)
    if (refusal === 'insufficient_scope') throw new errors.InsufficientScope(access, resource)
    if (refusal === 'credential_not_allowed') throw new errors.CredentialNotAllowed()

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
