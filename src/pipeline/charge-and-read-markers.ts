import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { marker } from '../lib/freshness.js'
import type { Credential } from '../types.js'
import { CREDENTIAL_WINDOWS, PUBLIC_WINDOWS, publicLimitKey } from '../plugins/rate-limit.js'
import { sameValues, type CredentialCache, type CredentialEntry } from './credential-cache.js'
import type { CredentialStep, Identified } from './identify-credential.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The store marker's value read by this request's limiter call; null when Redis could not be asked. */
    storeMarker: string | null
    /**
     * The value of the store's marker the route names in `keptUnder`, read by the same limiter call; null when
     * Redis could not be asked (then nothing may be kept).
     */
    keptSeen: string | null
  }
}

/** Store ids are `env_` and 20 characters; the column holds 40. */
const MAX_STORE_ID = 40

export function storeHeader (request: FastifyRequest): string | null {
  const value = request.headers['x-store-env-id']
  return typeof value === 'string' && value.trim() ? value.trim() : null
}

/** The store's markers a request reads with its limiter call: the store's own, then the route's `keptUnder`. */
function storeMarkersOf (storeId: string | null, kept: 'reviews' | 'events' | undefined): string[] {
  if (!storeId) return []
  return kept ? [marker.store(storeId), marker[kept](storeId)] : [marker.store(storeId)]
}

/** The store's markers of this request's route and x-store-env-id. */
function requestStoreMarkers (request: FastifyRequest): string[] {
  const config = request.routeOptions.config
  // A header too long to be a store id names no marker (it becomes no Redis key): resolve-store.ts reads the database.
  const header = config.storeScoped === false ? null : storeHeader(request)
  const storeId = header && header.length <= MAX_STORE_ID ? header : null
  return storeMarkersOf(storeId, config.keptUnder)
}

/** The limiter call answers the values in the order asked: the credential's markers, then the store's `count`. */
function noteStoreMarkers (request: FastifyRequest, values: string[] | null, count: number) {
  const from = values ? values.length - count : 0
  request.storeMarker = values && count > 0 ? values[from] : null
  request.keptSeen = values && count > 1 ? values[from + 1] : null
}

/**
 * Step 2: count the request against its budget, and read in the same Redis round trip the markers the held
 * credential and the store are kept under (lib/freshness.ts); a changed marker reads the credential again.
 */
export function chargeAndReadMarkers (app: FastifyInstance, cache: CredentialCache, credentials: CredentialStep) {
  app.decorateRequest('storeMarker', null)
  app.decorateRequest('keptSeen', null)
  const { freshness } = app.services

  /**
   * Unmatched URLs (the 404 handler has no route config) are counted like public routes, so every response under /v1
   * carries the RateLimit-* headers (docs/contract/api-conventions.md#rate-limit-headers) and probing unknown paths is
   * bounded.
   */
  async function chargePublic (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await app.enforceLimit(reply, publicLimitKey(request.ip), PUBLIC_WINDOWS)
  }

  /** Resolved, and its freshness settled, by the request that handed it over moments ago in this process. */
  async function chargeHanded (request: FastifyRequest, reply: FastifyReply, handed: Credential): Promise<Credential> {
    const storeMarkers = requestStoreMarkers(request)
    const verdict = await app.limiter.consume(`cred:${handed.type}:${handed.id}`, CREDENTIAL_WINDOWS, storeMarkers.map(freshness.keyOf))
    request.credential = handed
    noteStoreMarkers(request, verdict.markers ?? null, storeMarkers.length)
    app.applyVerdict(reply, verdict)
    return handed
  }

  async function charge (
    request: FastifyRequest,
    reply: FastifyReply,
    { token, tokenHash, now, held, entry }: Identified
  ): Promise<Credential> {
    const storeMarkers = requestStoreMarkers(request)
    // One Redis round trip counts the request and reads the markers of the credential and the store, so a warm
    // request makes no query at all, and a change committed anywhere is seen here before the request is served.
    const names = [...entry.markers, ...storeMarkers]
    const credential = entry.credential
    const verdict = await app.limiter.consume(`cred:${credential.type}:${credential.id}`, CREDENTIAL_WINDOWS, names.map(freshness.keyOf))
    const values = verdict.markers ?? null
    let current: CredentialEntry | null = entry
    if (held) {
      const seen = values?.slice(0, held.markers.length) ?? null
      if (!seen || !sameValues(seen, held.seen)) {
        current = await credentials.load(token, tokenHash, request, seen, held)
        if (!current) return credentials.refuse(request, reply, token)
      } else if (now >= held.staleAt) {
        // Unchanged markers vouch for the entry (any change that could refuse it moves one); the backstop against
        // a lost marker update reads it again beside this request, and what it finds refuses the next one.
        cache.refresh(tokenHash, () => credentials.load(token, tokenHash, request, seen, held))
      }
    }
    request.credential = current.credential
    noteStoreMarkers(request, values, storeMarkers.length)
    app.applyVerdict(reply, verdict)
    return current.credential
  }

  /**
   * For a caller that authenticates without charging (app.authenticate): no limiter call to read the markers with,
   * so a held credential is checked against them on its own.
   */
  async function readMarkersUncharged (
    request: FastifyRequest,
    reply: FastifyReply,
    { token, tokenHash, now, held, entry }: Identified
  ): Promise<Credential> {
    let current: CredentialEntry | null = entry
    if (held && (now >= held.staleAt || !sameValues(await freshness.read(held.markers) ?? [], held.seen))) {
      current = await credentials.load(token, tokenHash, request, undefined, held)
      if (!current) return credentials.refuse(request, reply, token)
    }
    request.credential = current.credential
    return current.credential
  }

  return { chargePublic, chargeHanded, charge, readMarkersUncharged }
}
