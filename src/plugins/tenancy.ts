import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { accessFor, refusalFor } from '../lib/permissions.js'
import { errors } from '../errors.js'
import { PLANS, type StoreEnv } from '../types.js'

declare module 'fastify' {
  interface FastifyRequest { store: StoreEnv | null }
}

function storeHeader (request: FastifyRequest): string | null {
  const value = request.headers['x-store-env-id']
  return typeof value === 'string' && value.trim() ? value.trim() : null
}

/**
 * After authentication: the store environment (service-api.md section 5.1), then role and scopes (5.2-5.5),
 * then subscription and plan (section 3). The order decides which refusal a caller sees first.
 */
export default fp(async (app) => {
  const stores = app.services.stores
  app.decorateRequest('store', null)

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config
    const credential = request.credential
    if (config.auth !== 'credential' || !credential) return

    const id = config.storeScoped === false ? null : storeHeader(request)
    const lookup = id ? stores.find(id) : Promise.resolve(null)
    lookup.catch(() => {})
    await request.credentialLimit
    if (config.storeScoped !== false) {
      if (!id) throw new errors.StoreEnvRequired()
      const store = await lookup
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
