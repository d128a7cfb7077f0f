import type { FastifyInstance, FastifyRequest } from 'fastify'
import { errors } from '../errors.js'
import type { StoreEnv } from '../types.js'
import type { CredentialCache } from './credential-cache.js'
import { storeHeader } from './charge-and-read-markers.js'

declare module 'fastify' {
  interface FastifyRequest { store: StoreEnv | null }
}

/**
 * Step 3, after authentication: the store environment (docs/contract/tenancy-and-roles.md#organizations-and-stores) the
 * request names in x-store-env-id, which must be the credential's organization's and in its grant, or a client's store
 * the credential's organization is a partner of (the request then acts with the partner credential).
 */
export function resolveStore (app: FastifyInstance, cache: CredentialCache) {
  const { stores, partners } = app.services
  app.decorateRequest('store', null)

  /**
   * From memory when the store's marker, read by this request's limiter call (charge-and-read-markers.ts), still has
   * the value it had when the store was read; otherwise from the database, read after that marker, so safe to keep
   * under it.
   */
  async function storeOf (id: string, seen: string | null) {
    const now = app.clock()
    const held = seen === null ? undefined : cache.store(id, seen, now)
    if (held) return held
    const store = await stores.find(id)
    if (store && seen !== null) cache.keepStore(store, seen, now)
    return store
  }

  return async function resolve (request: FastifyRequest): Promise<void> {
    const credential = request.credential!
    if (request.routeOptions.config.storeScoped === false) return
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
}
