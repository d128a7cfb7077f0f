import type { RouteOptions } from 'fastify'
import { isResource, type Resource, type Role } from '../lib/permissions.js'
import type { Feature } from '../features.js'

export type RouteAuth = 'credential' | 'storefront' | 'public' | 'none'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** credential (default under /v1), storefront (origin + per-IP limits), public (per-IP limit), none. */
    auth?: RouteAuth
    /** Defaults to the first path segment after /v1. */
    resource?: Resource
    /** false: no x-store-env-id needed (GET /account/stores). */
    storeScoped?: boolean
    /** true: allowed whatever the credential's scopes (GET /account/stores). */
    scopeExempt?: boolean
    /** The resources whose scopes open the route, any one of them, instead of `resource` alone (the event log). */
    scopesOf?: readonly Resource[]
    /** true: served while the store's subscription has lapsed. */
    subscriptionExempt?: boolean
    /** The least role the route needs beyond the resource table (audit log: admin). */
    minRole?: Role
    /** The least plan the route needs. */
    plan?: 'growth' | 'pro'
    /** The plan-gated feature the route needs (src/features.ts): its plan, or the store's operator override. */
    feature?: Feature
    /**
     * The store's data marker (lib/freshness.ts) the route's answers are kept under (lib/marked-cache.ts): the
     * limiter call reads it with the others, so a kept answer costs no query and a commit is seen on the next read.
     */
    keptUnder?: 'reviews' | 'events'
  }
}

/**
 * What each route's steps read, settled once as the route is added (an `onRoute` hook): a route under /v1 needs a
 * credential unless it says otherwise, and names the resource its role and scopes are checked against, by default
 * its first path segment; one that names no resource fails at start-up rather than on its first request.
 */
export function settleRouteConfig (route: RouteOptions & { path: string }): void {
  const config = (route.config ?? {}) as NonNullable<typeof route.config>
  const url = route.url ?? route.path
  const underApi = url.startsWith('/v1/')
  const auth = config.auth ?? (underApi ? 'credential' : 'none')
  let resource = config.resource
  if (auth === 'credential' && !resource) {
    const segment = url.split('/')[2] ?? ''
    if (!isResource(segment)) throw new Error(`Route ${url} needs config.resource: "${segment}" is not a resource`)
    resource = segment
  }
  route.config = { ...config, auth, resource }
}
