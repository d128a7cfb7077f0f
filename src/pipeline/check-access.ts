import type { FastifyInstance, FastifyRequest } from 'fastify'
import { accessFor, refusalFor, scopeLabel } from '../lib/permissions.js'
import { errors } from '../errors.js'
import { planRefusal, type FeatureOverrides } from '../features.js'
import type { CredentialCache } from './credential-cache.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The operator's feature overrides of this request's store, kept under the store's marker as the plan check keeps them. */
    storeOverrides: (request: FastifyRequest) => Promise<FeatureOverrides>
  }
}

/**
 * Step 4: role and scopes (docs/contract/tenancy-and-roles.md#authentication-5.5), then subscription and plan
 * (docs/contract/plans-and-limits.md#plans-and-subscription), of the (possibly partner) credential the request acts
 * with. The order decides which refusal a caller sees first.
 */
export function checkAccess (app: FastifyInstance, cache: CredentialCache) {
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

  return async function check (request: FastifyRequest): Promise<void> {
    const config = request.routeOptions.config
    const credential = request.credential!
    const resource = config.resource!
    const access = accessFor(request.method)
    const rule = {
      url: request.routeOptions.url ?? '',
      resource,
      minRole: config.minRole,
      scopeExempt: config.scopeExempt,
      scopesOf: config.scopesOf
    }
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
}
