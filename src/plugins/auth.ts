import { randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest, InjectOptions, LightMyRequestResponse } from 'fastify'
import { accessFor, isResource, roleRank, type Resource, type Role } from '../lib/permissions.js'
import { errors } from '../errors.js'
import type { Credential } from '../types.js'
import { AUTH_FAILURE_WINDOWS, CREDENTIAL_WINDOWS, PUBLIC_WINDOWS } from './rate-limit.js'

export type { Credential }

/**
 * A credential type plugs in here (API keys in modules/api-keys, OAuth access tokens in oauth/).
 * Answer `undefined` for a token that is not yours, `null` for yours but unknown/revoked/expired.
 */
export type CredentialResolver = (token: string, request: FastifyRequest) => Promise<Credential | null | undefined>

export type RouteAuth = 'credential' | 'storefront' | 'public' | 'none'

declare module 'fastify' {
  interface FastifyInstance {
    registerCredentialResolver: (resolver: CredentialResolver) => void
    /**
     * The credential step of the pipeline for a route that authenticates itself (the MCP endpoint): resolves the
     * key or token, spends the per-IP failure budget and throws 401 as the hook does. With `charge`, the request is
     * also counted against the credential's rate limit (settled in `request.credentialLimit`).
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
    /** The credential's rate-limit verdict, settled by the tenancy hook (it runs beside the store lookup). */
    credentialLimit: Promise<void> | null
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
    /** true: served while the store's subscription has lapsed. */
    subscriptionExempt?: boolean
    /** The least role the route needs beyond the resource table (audit log: admin). */
    minRole?: Role
    /** The least plan the route needs. */
    plan?: 'growth' | 'pro'
  }
}

/** Carries the nonce of a credential handed to an injected request (`app.injectAs`); meaningless off the process. */
const HAND_OVER_HEADER = 'x-evidence-hub-hand-over'

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

export default fp(async (app) => {
  const resolvers: CredentialResolver[] = []
  app.decorate('registerCredentialResolver', (resolver: CredentialResolver) => { resolvers.push(resolver) })
  app.decorateRequest('credential', null)
  app.decorateRequest('credentialLimit', null)

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

  const people = app.services.people

  /**
   * Credentials handed to injected requests, under single-use nonces (random UUIDs: 122 CSPRNG bits, drawn from
   * node's buffered pool, not a getrandom call each) that exist only while the injection runs and never leave the
   * process. A client sending the header cannot name a live nonce, and a request off the network is never taken
   * for an injected one anyway, so the header can name nothing a caller could forge; without a live nonce the
   * request resolves its own credential as always.
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

  async function resolve (token: string, request: FastifyRequest): Promise<Credential | null> {
    for (const resolver of resolvers) {
      const credential = await resolver(token, request)
      if (credential !== undefined) return credential && await stillMember(credential) ? credential : null
    }
    return null
  }

  /**
   * service-api.md 5.7: membership and role are re-checked on every request, whatever the credential type, so a
   * removed or demoted person's tokens stop at once. Keys belong to no person and skip this.
   */
  async function stillMember (credential: Credential): Promise<boolean> {
    if (!credential.personId || credential.membershipChecked) return true
    const role = await people.membershipRole(credential.orgId, credential.personId)
    return role !== null && roleRank(role) >= roleRank(credential.role)
  }

  async function authenticate (request: FastifyRequest, reply: FastifyReply, { charge }: { charge: boolean }, handed: Credential | null = null): Promise<Credential> {
    // The per-IP failure budget is spent only by failures and looked at only once the credential has failed, so
    // a valid key or token is never refused for what others behind the same NAT got wrong. The count is one
    // atomic step (one Redis script, or one synchronous step in memory), so however many bad credentials arrive
    // at once, at most the budget get 401 and the rest 429. Reserving before verifying, as the password login
    // does, would bound nothing here: a valid credential must be verified whatever the budget says, so every
    // one is verified anyway, and valid requests would pay two more round trips. Letting a valid credential past
    // an exhausted budget opens no guessing (keys carry 32+ random base62 characters, tokens are signed);
    // passwords can be guessed, which is why the login locks out before it checks (plugins/session.ts).
    const token = tokenOf(request)
    const credential = handed ?? (token ? await resolve(token, request) : null)
    if (!credential) {
      await app.enforceLimit(reply, `ip:authfail:${request.ip}`, AUTH_FAILURE_WINDOWS)
      throw token === null ? new errors.MissingCredentials() : new errors.InvalidCredentials()
    }
    request.credential = credential
    if (!charge) return credential
    // Not awaited here: the Redis round trip overlaps the store lookup in plugins/tenancy.ts, which awaits it
    // first, so a refused request still gets 429 before any store or permission error.
    const limit = app.enforceLimit(reply, `cred:${credential.type}:${credential.id}`, CREDENTIAL_WINDOWS).then(() => {})
    limit.catch(() => {})
    request.credentialLimit = limit
    return credential
  }

  app.decorate('authenticate', (request: FastifyRequest, reply: FastifyReply, options: { charge: boolean }) => authenticate(request, reply, options))
  app.decorate('injectAs', injectAs)

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config
    // Unmatched URLs (the 404 handler has no route config) are counted like public routes, so every response
    // under /v1 carries the RateLimit-* headers (decisions.md section 3) and probing unknown paths is bounded.
    const auth = config.auth ?? (request.url.startsWith('/v1/') ? 'public' : 'none')
    if (auth === 'public') {
      await app.enforceLimit(reply, `ip:public:${request.ip}`, PUBLIC_WINDOWS)
      return
    }
    if (auth !== 'credential') return

    await authenticate(request, reply, { charge: true }, handOver(request))
  })
}, { name: 'auth', dependencies: ['services', 'rate-limit'] })

export { accessFor }
