import { randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest, InjectOptions, LightMyRequestResponse } from 'fastify'
import { accessFor, isResource, roleRank, type Resource, type Role } from '../lib/permissions.js'
import { marker, staleAfter } from '../lib/freshness.js'
import type { Feature } from '../features.js'
import { sha256 } from '../lib/secrets.js'
import { errors } from '../errors.js'
import type { Credential, CredentialClaim } from '../types.js'
import { AUTH_FAILURE_WINDOWS, CREDENTIAL_WINDOWS, PUBLIC_WINDOWS, publicLimitKey } from './rate-limit.js'
import { CredentialCache, sameValues, type CredentialEntry } from './credential-cache.js'

export type { Credential, CredentialClaim }

/**
 * A credential type plugs in here (API keys in modules/api-keys, OAuth access tokens in oauth/).
 * Answer `undefined` for a token that is not yours, `null` for yours but unknown/revoked/expired.
 * A plain resolver is asked on every request; a claiming one (`{ claim }`) names the markers that let the
 * pipeline keep its credentials in memory between requests (plugins/credential-cache.ts).
 */
export type CredentialResolver = (token: string, request: FastifyRequest) => Promise<Credential | null | undefined>
export interface ClaimingResolver { claim: (token: string, request: FastifyRequest) => Promise<CredentialClaim | null | undefined> }

export type RouteAuth = 'credential' | 'storefront' | 'public' | 'none'

declare module 'fastify' {
  interface FastifyInstance {
    registerCredentialResolver: (resolver: CredentialResolver | ClaimingResolver) => void
    credentialCache: CredentialCache
    /**
     * The credential step of the pipeline for a route that authenticates itself (the MCP endpoint): resolves the
     * key or token (from memory when its markers are unchanged), spends the per-IP failure budget and throws 401
     * as the hook does. With `charge`, the request is also counted against the credential's rate limit.
     */
    authenticate: (request: FastifyRequest, reply: FastifyReply, options: { charge: boolean }) => Promise<Credential>
    /**
     * app.inject as a credential this request already resolved (an MCP tool call becoming its REST call): the
     * injected request skips the second lookup and runs everything after it as REST does (limits, store, role,
     * scopes, plan, subscription, audit). Only this process can hand a credential over (see `handOver`).
     */
    injectAs: (credential: Credential, options: InjectOptions) => Promise<LightMyRequestResponse>
  }
  interface FastifyRequest {
    credential: Credential | null
    /** The store marker's value read by this request's limiter call; null when Redis could not be asked. */
    storeMarker: string | null
    /**
     * The value of the store's marker the route names in `keptUnder`, read by the same limiter call; null when
     * Redis could not be asked (then nothing may be kept).
     */
    keptSeen: string | null
  }
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

function tokenOf (request: FastifyRequest): string | null {
  const header = request.headers.authorization
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    return match ? match[1] : ''
  }
  const key = request.headers['x-api-key']
  if (typeof key === 'string') return key.trim()
  return null
}

/** Carries the nonce of a credential handed to an injected request (`app.injectAs`); meaningless off the process. */
const HAND_OVER_HEADER = 'x-evidence-hub-hand-over'

/** Store ids are `env_` and 20 characters; the column holds 40. */
const MAX_STORE_ID = 40

export function storeHeader (request: FastifyRequest): string | null {
  const value = request.headers['x-store-env-id']
  return typeof value === 'string' && value.trim() ? value.trim() : null
}

export default fp(async (app) => {
  const resolvers: ClaimingResolver[] = []
  app.decorate('registerCredentialResolver', (resolver: CredentialResolver | ClaimingResolver) => {
    if (typeof resolver !== 'function') {
      resolvers.push(resolver)
      return
    }
    resolvers.push({
      async claim (token, request) {
        const found = await resolver(token, request)
        return found === undefined || found === null ? found : { markers: [], load: async () => found }
      }
    })
  })
  app.decorateRequest('credential', null)
  app.decorateRequest('storeMarker', null)
  app.decorateRequest('keptSeen', null)
  const cache = new CredentialCache()
  app.decorate('credentialCache', cache)
  const { freshness, people } = app.services
  const clock = app.clock
  if (app.redis) {
    const redis = app.redis
    const forget = () => cache.clear()
    redis.on('ready', forget)
    app.addHook('onClose', async () => { redis.off('ready', forget) })
  }
  app.addHook('onClose', () => cache.settled())

  app.addHook('onRoute', (route) => {
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
  })

  async function claimOf (token: string, request: FastifyRequest): Promise<CredentialClaim | null> {
    for (const resolver of resolvers) {
      const claim = await resolver.claim(token, request)
      if (claim !== undefined) return claim
    }
    return null
  }

  /**
   * docs/contract/tenancy-and-roles.md#authentication: membership and role are re-checked on every request, whatever
   * the credential type, so a removed or demoted person's tokens stop at once. Keys belong to no person and skip this.
   * (A cached person-bound credential is re-checked through its person marker, which every membership change bumps.)
   */
  async function stillMember (credential: Credential): Promise<boolean> {
    if (!credential.personId || credential.membershipChecked) return true
    const role = await people.membershipRole(credential.orgId, credential.personId)
    return role !== null && roleRank(role) >= roleRank(credential.role)
  }

  /**
   * Reads the credential from the database. `seen`: the markers' values read before this (by the limiter script);
   * without them they are read first here, so what is kept is never older than the values it is kept under.
   * `held`: the entry read before, whose claim (the token's verified content) is asked again rather than made anew.
   */
  async function load (token: string, tokenHash: string, request: FastifyRequest, seen?: string[] | null, held?: CredentialEntry): Promise<CredentialEntry | null> {
    const claim = held?.claim ?? await claimOf(token, request)
    if (!claim) return null
    const cacheable = freshness.shared && claim.markers.length > 0
    const values = !cacheable ? null : seen !== undefined ? seen : await freshness.read(claim.markers)
    const found = await claim.load()
    const credential = found && await stillMember(found) ? found : null
    if (!credential) {
      cache.forgetCredential(tokenHash)
      return null
    }
    const now = clock()
    const expiries = [claim.expiresAt, credential.expiresAt].filter((at): at is number => at != null)
    const entry: CredentialEntry = {
      credential,
      claim,
      markers: claim.markers,
      seen: values ?? [],
      expiresAt: expiries.length ? Math.min(...expiries) : null,
      staleAt: staleAfter(now)
    }
    if (values) cache.keepCredential(tokenHash, entry)
    return entry
  }

  async function refuse (request: FastifyRequest, reply: FastifyReply, token: string | null): Promise<never> {
    await app.enforceLimit(reply, `ip:authfail:${request.ip}`, AUTH_FAILURE_WINDOWS)
    throw token === null ? new errors.MissingCredentials() : new errors.InvalidCredentials()
  }

  /**
   * Credentials handed to injected requests, under single-use nonces (random UUIDs: 122 CSPRNG bits) that exist
   * only while the injection runs and never leave the process. A client sending the header cannot name a live
   * nonce, and a request off the network is never taken for an injected one anyway, so the header can name nothing
   * a caller could forge; without a live nonce the request resolves its own credential as always.
   */
  const handedOver = new Map<string, Credential>()

  async function injectAs (credential: Credential, options: InjectOptions): Promise<LightMyRequestResponse> {
    const nonce = randomUUID()
    handedOver.set(nonce, credential)
    try {
      return await app.inject({ ...options, headers: { ...options.headers, [HAND_OVER_HEADER]: nonce } })
    } finally {
      handedOver.delete(nonce)
    }
  }

  function handOver (request: FastifyRequest): Credential | null {
    const nonce = request.headers[HAND_OVER_HEADER]
    if (nonce === undefined) return null
    delete request.headers[HAND_OVER_HEADER]
    if (typeof nonce !== 'string' || !(request.raw as { isLightMyRequest?: boolean }).isLightMyRequest) return null
    const credential = handedOver.get(nonce) ?? null
    handedOver.delete(nonce)
    return credential
  }

  /** The store's markers a request reads with its limiter call: the store's own, then the route's `keptUnder`. */
  function storeMarkersOf (storeId: string | null, kept: 'reviews' | 'events' | undefined): string[] {
    if (!storeId) return []
    return kept ? [marker.store(storeId), marker[kept](storeId)] : [marker.store(storeId)]
  }

  /** The limiter call answers the values in the order asked: the credential's markers, then the store's `count`. */
  function noteStoreMarkers (request: FastifyRequest, values: string[] | null, count: number) {
    const from = values ? values.length - count : 0
    request.storeMarker = values && count > 0 ? values[from] : null
    request.keptSeen = values && count > 1 ? values[from + 1] : null
  }

  /**
   * The per-IP failure budget is spent only by failures and looked at only once the credential has failed, so
   * a valid key or token is never refused for what others behind the same NAT got wrong. The count is one
   * atomic step (one Redis script, or one synchronous step in memory), so however many bad credentials arrive
   * at once, at most the budget get 401 and the rest 429. Reserving before verifying, as the password login
   * does, would bound nothing here: a valid credential must be verified whatever the budget says, so every
   * one is verified anyway, and valid requests would pay two more round trips. Letting a valid credential past
   * an exhausted budget opens no guessing (keys carry 32+ random base62 characters, tokens are signed);
   * passwords can be guessed, which is why the login locks out before it checks (plugins/session.ts).
   */
  async function authenticate (request: FastifyRequest, reply: FastifyReply, { charge }: { charge: boolean }, handed: Credential | null = null): Promise<Credential> {
    const config = request.routeOptions.config
    // A header too long to be a store id names no marker (it becomes no Redis key): tenancy reads the database.
    const header = config.storeScoped === false ? null : storeHeader(request)
    const storeId = header && header.length <= MAX_STORE_ID ? header : null
    const storeMarkers = storeMarkersOf(storeId, config.keptUnder)
    if (handed) {
      // Resolved, and its freshness settled, by the request that handed it over moments ago in this process.
      const verdict = await app.limiter.consume(`cred:${handed.type}:${handed.id}`, CREDENTIAL_WINDOWS, storeMarkers.map(freshness.keyOf))
      request.credential = handed
      noteStoreMarkers(request, verdict.markers ?? null, storeMarkers.length)
      app.applyVerdict(reply, verdict)
      return handed
    }

    const token = tokenOf(request)
    if (!token) return refuse(request, reply, token)
    const tokenHash = sha256(token)
    const now = clock()
    const held = cache.credential(tokenHash, now)
    let entry = held ?? await load(token, tokenHash, request)
    if (!entry) return refuse(request, reply, token)

    if (!charge) {
      // No limiter call to read the markers with: a held credential is checked against them on its own.
      if (held && (now >= held.staleAt || !sameValues(await freshness.read(held.markers) ?? [], held.seen))) {
        entry = await load(token, tokenHash, request, undefined, held)
        if (!entry) return refuse(request, reply, token)
      }
      request.credential = entry.credential
      return entry.credential
    }

    // One Redis round trip counts the request and reads the markers of the credential and the store, so a warm
    // request makes no query at all, and a change committed anywhere is seen here before the request is served.
    const names = [...entry.markers, ...storeMarkers]
    const credential = entry.credential
    const verdict = await app.limiter.consume(`cred:${credential.type}:${credential.id}`, CREDENTIAL_WINDOWS, names.map(freshness.keyOf))
    const values = verdict.markers ?? null
    if (held) {
      const current = values?.slice(0, held.markers.length) ?? null
      if (!current || !sameValues(current, held.seen)) {
        entry = await load(token, tokenHash, request, current, held)
        if (!entry) return refuse(request, reply, token)
      } else if (now >= held.staleAt) {
        // Unchanged markers vouch for the entry (any change that could refuse it moves one); the backstop against
        // a lost marker update reads it again beside this request, and what it finds refuses the next one.
        cache.refresh(tokenHash, () => load(token, tokenHash, request, current, held))
      }
    }
    request.credential = entry.credential
    noteStoreMarkers(request, values, storeMarkers.length)
    app.applyVerdict(reply, verdict)
    return entry.credential
  }

  app.decorate('authenticate', (request: FastifyRequest, reply: FastifyReply, options: { charge: boolean }) => authenticate(request, reply, options))
  app.decorate('injectAs', injectAs)

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config
    // Unmatched URLs (the 404 handler has no route config) are counted like public routes, so every response under /v1
    // carries the RateLimit-* headers (docs/contract/api-conventions.md#rate-limit-headers) and probing unknown paths
    // is bounded.
    const auth = config.auth ?? (request.url.startsWith('/v1/') ? 'public' : 'none')
    if (auth === 'public') {
      await app.enforceLimit(reply, publicLimitKey(request.ip), PUBLIC_WINDOWS)
      return
    }
    if (auth !== 'credential') return
    await authenticate(request, reply, { charge: true }, handOver(request))
  })
}, { name: 'auth', dependencies: ['services', 'rate-limit'] })

export { accessFor }
