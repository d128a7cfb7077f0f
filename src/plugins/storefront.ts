import fp from 'fastify-plugin'
import cors, { type FastifyCorsOptions } from '@fastify/cors'
// The library's own Vary handling (the package declares no exports map; plugins/fastify-cors-vary.d.ts types it).
import { addOriginToVaryHeader } from '@fastify/cors/vary.js'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { Window } from '../lib/rate-limiter.js'
import { errors } from '../errors.js'
import { marker } from '../lib/freshness.js'
import { originKey, originNotAllowedMessage } from '../lib/origins.js'
import { PUBLIC_WINDOWS, publicLimitKey } from './rate-limit.js'
import type { StoreEnv } from '../types.js'

/**
 * docs/contract/plans-and-limits.md#storefront-limits, storefront writes: per visitor IP, each endpoint its own budget.
 */
export const STOREFRONT_LIMITS = {
  'reviews.create': [{ ms: 1_000, limit: 3 }, { ms: 60_000, limit: 5 }],
  'reviews.video-upload-url': [{ ms: 1_000, limit: 1 }, { ms: 60_000, limit: 3 }],
  'galleries.photo': [{ ms: 1_000, limit: 3 }, { ms: 60_000, limit: 10 }],
  'galleries.lead': [{ ms: 1_000, limit: 3 }, { ms: 60_000, limit: 10 }],
  'galleries.favourite': [{ ms: 1_000, limit: 5 }, { ms: 60_000, limit: 30 }],
  'reviews.helpful': [{ ms: 1_000, limit: 5 }, { ms: 60_000, limit: 20 }],
  'uploads.image': [{ ms: 1_000, limit: 5 }, { ms: 60_000, limit: 20 }],
  // docs/contract/plans-and-limits.md#storefront-limits: widget reads, each endpoint its own budget.
  'storefront.reviews': [{ ms: 1_000, limit: 20 }, { ms: 60_000, limit: 600 }],
  'storefront.summary': [{ ms: 1_000, limit: 20 }, { ms: 60_000, limit: 600 }],
  'storefront.galleries': [{ ms: 1_000, limit: 20 }, { ms: 60_000, limit: 600 }],
  'storefront.faqs': [{ ms: 1_000, limit: 20 }, { ms: 60_000, limit: 600 }],
  'storefront.placements': [{ ms: 1_000, limit: 20 }, { ms: 60_000, limit: 600 }],
  // The PUT to a video upload URL: one per URL issued, so the URL's own budget.
  'reviews.video-upload': [{ ms: 1_000, limit: 1 }, { ms: 60_000, limit: 3 }]
} satisfies Record<string, Window[]>
export type StorefrontEndpoint = keyof typeof STOREFRONT_LIMITS

/** The limiter key of one endpoint's budget for a visitor of a store. */
export function storefrontLimitKey (endpoint: StorefrontEndpoint, storeId: string, ip: string): string {
  return `ip:sf:${endpoint}:${storeId}:${ip}`
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The store's reviews marker's value as this request's limiter call read it (lib/freshness.ts), or null when
     * markers are not shared (no Redis) and nothing may be cached.
     */
    reviewsSeen: string | null
  }
  interface FastifyContextConfig {
    /** With auth 'storefront': which per-IP budget of STOREFRONT_LIMITS the route spends. */
    storefrontLimit?: StorefrontEndpoint
    /**
     * A signed URL's route (a video upload): the URL names its store (`store` query parameter, used when no
     * `x-store-env-id` is sent) and its token is the credential, so a call without Origin (not from a browser) is
     * admitted; a browser's Origin is still checked.
     */
    signedUrl?: boolean
  }
}

// ETag: a widget may keep an answer and send it back in If-None-Match (a 304 costs the store no body).
const EXPOSED = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, ETag'
// Only a refusal is cached, briefly, so an origin an owner has just added works within seconds; an allowed origin is
// looked up on every preflight (browsers keep one for maxAge), so one just removed is refused at once.
const REFUSED_ORIGIN_CACHE_MS = 5_000

/** A store's allowed origins as compared, made once per store object read (every widget request asks twice). */
const normalized = new WeakMap<StoreEnv, Set<string>>()

export function originAllowed (store: StoreEnv, origin: string | undefined): boolean {
  if (!origin) return false
  let allowed = normalized.get(store)
  if (!allowed) {
    allowed = new Set(store.allowedOrigins.map(originKey))
    normalized.set(store, allowed)
  }
  return allowed.has(originKey(origin))
}

/**
 * Storefront routes (docs/contract/storefront.md#origins): `x-store-env-id` names the store, the browser's Origin must
 * be one of the store's allowed origins (403 origin_not_allowed; a call without Origin is refused the same way, since
 * only browsers call these routes), a lapsed store answers subscription_expired, and each endpoint has its own per-IP
 * budget. `request.ip` honours proxies only when TRUST_PROXY says so. CORS answers only allowed origins.
 */
export default fp(async (app) => {
  app.decorateRequest('reviewsSeen', null)
  const routes: Array<{ methods: string[], pattern: RegExp }> = []
  app.addHook('onRoute', (route) => {
    if (route.config?.auth !== 'storefront') return
    const source = route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')
    routes.push({ methods: ([] as string[]).concat(route.method), pattern: new RegExp(`^${source}$`) })
  })
  const isStorefront = (method: string, path: string) => routes.some((r) => r.methods.includes(method) && r.pattern.test(path))

  const { freshness } = app.services

  /** x-store-env-id, or on a signed URL's route the URL's own `store` (the token only opens that store's upload). */
  function storeIdOf (request: FastifyRequest): string {
    const header = request.headers['x-store-env-id']
    if (typeof header === 'string' && header.trim()) return header.trim()
    const named = request.routeOptions.config?.signedUrl ? (request.query as Record<string, unknown> | undefined)?.store : undefined
    return typeof named === 'string' ? named.trim() : ''
  }
  const cache = app.credentialCache

  /**
   * The store named by x-store-env-id, once per request: as this instance last read it when markers are shared
   * (`seen` is the marker value it was read under; the limiter call checks it), else from the database. A held
   * store that would refuse the caller's Origin is read again first, so an origin just added works at once.
   */
  const stores = new WeakMap<FastifyRequest, Promise<{ store: StoreEnv | null, seen: string | null }>>()
  function storeOf (request: FastifyRequest): Promise<{ store: StoreEnv | null, seen: string | null }> {
    let found = stores.get(request)
    if (!found) {
      const id = storeIdOf(request)
      const held = id && freshness.shared ? cache.latestStore(id, app.clock()) : undefined
      found = held && originAllowed(held.store, request.headers.origin)
        ? Promise.resolve(held)
        : id
          ? app.stores.find(id).then((store) => ({ store, seen: null }))
          : Promise.resolve({ store: null, seen: null })
      stores.set(request, found)
    }
    return found
  }

  // A preflight cannot carry x-store-env-id's value, so it succeeds for an origin some store allows; the actual
  // request is then checked against its own store and gets no CORS headers if that store does not allow it.
  const refusedOrigins = new Map<string, number>()
  async function anyStoreAllows (origin: string): Promise<boolean> {
    const key = originKey(origin)
    const refusedAt = refusedOrigins.get(key)
    if (refusedAt !== undefined && Date.now() - refusedAt < REFUSED_ORIGIN_CACHE_MS) return false
    const row = await app.db('store_origins').where({ origin: key }).first('store_env_id')
    if (row) return true
    if (refusedOrigins.size > 1000) refusedOrigins.clear()
    refusedOrigins.set(key, Date.now())
    return false
  }

  const noCors = { origin: false }
  async function preflight (request: FastifyRequest, origin: string) {
    const method = String(request.headers['access-control-request-method'] ?? '').toUpperCase()
    const allowed = isStorefront(method, request.url.split('?')[0]) && await anyStoreAllows(origin)
    return allowed
      ? { origin, methods: [method], allowedHeaders: ['content-type', 'x-store-env-id', 'if-none-match'], maxAge: 600 }
      : noCors
  }
  await app.register(corsForPreflights, {
    hook: 'onRequest',
    delegator: (request: FastifyRequest, done: (err: Error | null, options?: object) => void) => {
      const origin = request.headers.origin
      if (!origin) return done(null, noCors)
      preflight(request, origin).then((options) => done(null, options), done)
    },
    // An actual request's Access-Control-Allow-Origin is set by the storefront step below, once the store as
    // last written admits the origin: never on a refusal of it.
    actual (_request, reply, next) {
      addOriginToVaryHeader(reply)
      next()
    }
  })

  /**
   * A call refused before any store's budget applies (no store named, an unknown store, a refused origin) spends the
   * visitor's public budget instead, as unknown URLs do: it carries RateLimit-* like every answer under /v1
   * (docs/contract/api-conventions.md#rate-limit-headers), and refusals from one IP are bounded, while the stores'
   * budgets stay for calls that passed the origin check (docs/contract/plans-and-limits.md#storefront-limits).
   */
  async function refuse (request: FastifyRequest, reply: FastifyReply, err: Error): Promise<never> {
    await app.enforceLimit(reply, publicLimitKey(request.ip), PUBLIC_WINDOWS)
    throw err
  }

  /** The refusal a store gives a call, before and after its budget is spent; null when it admits it. */
  function refusalOf (request: FastifyRequest, store: StoreEnv | null | undefined): Error | null {
    if (!store) return new errors.StoreEnvNotFound()
    const signedWithoutOrigin = request.routeOptions.config?.signedUrl === true && request.headers.origin === undefined
    if (!signedWithoutOrigin && !originAllowed(store, request.headers.origin)) {
      return new errors.OriginNotAllowed(originNotAllowedMessage(request.headers.origin, store.id))
    }
    return null
  }

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config
    if (config.auth !== 'storefront') return
    const endpoint = config.storefrontLimit
    if (!endpoint) throw new Error(`Storefront route ${request.routeOptions.url} has no storefrontLimit`)
    if (!storeIdOf(request)) return refuse(request, reply, new errors.StoreEnvRequired())
    // The store as this instance last read it decides provisionally; the limiter call below reads its marker (and
    // that of the storefront's cached answers) in the same round trip, and a changed marker means reading it again.
    const held = await storeOf(request)
    const refused = refusalOf(request, held.store)
    if (refused) return refuse(request, reply, refused)
    let store = held.store!
    // docs/contract/plans-and-limits.md#storefront-limits: per store and IP, so one shop's spam never locks a visitor
    // out of another shop, and only calls that passed the origin check spend it.
    const markers = freshness.shared ? [freshness.keyOf(marker.store(store.id)), freshness.keyOf(marker.reviews(store.id))] : undefined
    const verdict = await app.limiter.consume(storefrontLimitKey(endpoint, store.id, request.ip), STOREFRONT_LIMITS[endpoint], markers)
    const seen = verdict.markers ?? null
    if (seen && held.seen !== seen[0]) {
      // Read after the marker, so safe to keep under its value.
      const now = app.clock()
      const read = await app.stores.find(store.id)
      const gone = refusalOf(request, read)
      if (gone) return refuse(request, reply, gone)
      store = read!
      cache.keepStore(store, seen[0], now)
    }
    // The origin passed the store's current list: what follows (429, 403 subscription_expired, the answer) is readable.
    reply.header('Access-Control-Allow-Origin', request.headers.origin).header('Access-Control-Expose-Headers', EXPOSED)
    app.applyVerdict(reply, verdict)
    if (store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
    request.store = store
    request.reviewsSeen = seen ? seen[1] : null
  })
}, { name: 'storefront', dependencies: ['rate-limit', 'pipeline', 'services'] })

type OnRequest = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void

/**
 * @fastify/cors for preflights; an actual request gets its CORS headers from `actual`. For an actual request the
 * library's answer is three headers (`Vary: Origin` always; `Access-Control-Allow-Origin` and
 * `Access-Control-Expose-Headers` for an allowed origin), but it first spreads two option objects of some twenty
 * fields and builds a callback, per request: ~5 % of the CPU of a trivial GET and of a widget read, and a third of
 * what each request left for the old generation (bench/RESULTS.md, memory notes).
 */
const corsForPreflights = fp<FastifyCorsOptions & { actual: OnRequest }>((instance, { actual, ...options }, done) => {
  const preflightsOnly = new Proxy(instance, {
    get (target, property, receiver) {
      if (property !== 'addHook') return Reflect.get(target, property, receiver)
      return (name: string, hook: OnRequest) => {
        if (name !== 'onRequest') return target.addHook(name as 'onRequest', hook)
        return target.addHook('onRequest', function (request, reply, next) {
          if (request.raw.method !== 'OPTIONS') return actual.call(this, request, reply, next)
          return hook.call(this, request, reply, next)
        })
      }
    }
  })
  ;(cors as unknown as (instance: FastifyInstance, options: FastifyCorsOptions, done: (err?: Error) => void) => void)(
    preflightsOnly,
    options,
    done
  )
}, { name: 'cors-for-preflights' })
