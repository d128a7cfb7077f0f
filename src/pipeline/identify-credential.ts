import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { roleRank } from '../lib/permissions.js'
import { staleAfter } from '../lib/freshness.js'
import { sha256 } from '../lib/secrets.js'
import { errors } from '../errors.js'
import { bearerChallenge } from '../lib/bearer-challenge.js'
import type { Credential, CredentialClaim } from '../types.js'
import { AUTH_FAILURE_WINDOWS } from '../plugins/rate-limit.js'
import type { CredentialCache, CredentialEntry } from './credential-cache.js'

/**
 * A credential type plugs in here (API keys in modules/api-keys, OAuth access tokens in oauth/).
 * Answer `undefined` for a token that is not yours, `null` for yours but unknown/revoked/expired.
 * A plain resolver is asked on every request; a claiming one (`{ claim }`) names the markers that let the
 * pipeline keep its credentials in memory between requests (pipeline/credential-cache.ts).
 */
export type CredentialResolver = (token: string, request: FastifyRequest) => Promise<Credential | null | undefined>
export interface ClaimingResolver { claim: (token: string, request: FastifyRequest) => Promise<CredentialClaim | null | undefined> }

declare module 'fastify' {
  interface FastifyInstance {
    registerCredentialResolver: (resolver: CredentialResolver | ClaimingResolver) => void
    credentialCache: CredentialCache
  }
  interface FastifyRequest {
    credential: Credential | null
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

/**
 * The request's key or token as an entry: from memory when this instance holds it (the next step checks that its
 * markers are unchanged), else from the resolvers. `held` is the entry memory answered, if any.
 */
export interface Identified { token: string, tokenHash: string, now: number, held: CredentialEntry | undefined, entry: CredentialEntry }

export type CredentialStep = ReturnType<typeof identifyCredential>

/** Step 1: who is calling. Refuses (401, spending the per-IP failure budget) a missing or unknown credential. */
export function identifyCredential (app: FastifyInstance, cache: CredentialCache) {
  const resolvers: ClaimingResolver[] = []
  function registerResolver (resolver: CredentialResolver | ClaimingResolver) {
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
  }
  app.decorateRequest('credential', null)
  const { freshness, people } = app.services
  const clock = app.clock

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
  async function load (
    token: string,
    tokenHash: string,
    request: FastifyRequest,
    seen?: string[] | null,
    held?: CredentialEntry
  ): Promise<CredentialEntry | null> {
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

  /**
   * The per-IP failure budget is spent only by failures and looked at only once the credential has failed, so
   * a valid key or token is never refused for what others behind the same NAT got wrong. The count is one
   * atomic step (one Redis script, or one synchronous step in memory), so however many bad credentials arrive
   * at once, at most the budget get 401 and the rest 429. Reserving before verifying, as the password login
   * does, would bound nothing here: a valid credential must be verified whatever the budget says, so every
   * one is verified anyway, and valid requests would pay two more round trips. Letting a valid credential past
   * an exhausted budget opens no guessing (keys carry 32+ random base62 characters, tokens are signed);
   * passwords can be guessed, which is why the login locks out before it checks (plugins/session.ts).
   * The 401 carries RFC 6750's challenge (lib/bearer-challenge.ts).
   */
  async function refuse (request: FastifyRequest, reply: FastifyReply, token: string | null): Promise<never> {
    await app.enforceLimit(reply, `ip:authfail:${request.ip}`, AUTH_FAILURE_WINDOWS)
    const err = token === null ? new errors.MissingCredentials() : new errors.InvalidCredentials()
    reply.header('www-authenticate', bearerChallenge(token === null ? {} : { invalid: { description: err.message } }))
    throw err
  }

  async function identify (request: FastifyRequest, reply: FastifyReply): Promise<Identified> {
    const token = tokenOf(request)
    if (!token) return refuse(request, reply, token)
    const tokenHash = sha256(token)
    const now = clock()
    const held = cache.credential(tokenHash, now)
    const entry = held ?? await load(token, tokenHash, request)
    if (!entry) return refuse(request, reply, token)
    return { token, tokenHash, now, held, entry }
  }

  return { registerResolver, identify, load, refuse }
}
