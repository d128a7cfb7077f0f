import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWK } from 'jose'
import type { Clock } from '../src/lib/clock.js'
import { marker } from '../src/lib/freshness.js'
import type { Credential, CredentialClaim } from '../src/types.js'
import { entitles, type GrantsRepository } from '../src/modules/connectors/index.js'
import { ACCESS_TOKEN_ALGS, publicJwks } from './keys.js'

const TOUCH_EVERY_MS = 60_000
const KEY_RELOAD_EVERY_MS = 10_000

interface Deps {
  issuer: string
  audience: string
  clock: Clock
  grants: GrantsRepository
  keys: JWK[]
  /** Reads the key set again (another instance may have rotated keys since this one started). */
  reloadKeys: () => Promise<JWK[]>
}

/**
 * The auth pipeline's resolver for OAuth access tokens (JWTs from our provider). The signature, issuer,
 * audience and expiry are checked locally; then that the grant is live and the person is still a member with at
 * least the grant's role (docs/contract/oauth.md#grants): from the database, or from memory while the grant's and the
 * person's markers are unchanged (pipeline/credential-cache.ts), which revocation and membership changes bump.
 */
export function oauthCredentialResolver (deps: Deps) {
  let jwks = createLocalJWKSet({ keys: publicJwks(deps.keys) })
  let reloadedAt = 0

  async function verify (token: string) {
    const options = {
      issuer: deps.issuer,
      audience: deps.audience,
      algorithms: ACCESS_TOKEN_ALGS,
      typ: 'at+jwt',
      currentDate: new Date(deps.clock())
    }
    try {
      return (await jwtVerify(token, jwks, options)).payload
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey) || Date.now() - reloadedAt < KEY_RELOAD_EVERY_MS) throw err
      reloadedAt = Date.now()
      jwks = createLocalJWKSet({ keys: publicJwks(await deps.reloadKeys()) })
      return (await jwtVerify(token, jwks, options)).payload
    }
  }

  async function load (grantId: string, personId: string, claim: CredentialClaim): Promise<Credential | null> {
    const now = deps.clock()
    const grant = await deps.grants.findLive(grantId, now)
    if (!grant || !entitles(grant, personId)) return null
    if (grant.lastUsedAt == null) {
      // The first use shows in the connection list by the time the response is out (once per grant).
      await deps.grants.touch(grant.id, now, TOUCH_EVERY_MS)
    } else if (grant.lastUsedAt < now - TOUCH_EVERY_MS) {
      deps.grants.touch(grant.id, now, TOUCH_EVERY_MS).catch(() => {})
    }
    // The provider's grant expires on its own: a cached credential must stop then too.
    if (grant.expiresAt != null) claim.expiresAt = Math.min(claim.expiresAt ?? Infinity, grant.expiresAt)
    // findLive joined the membership and the role was compared above: the auth pipeline need not ask again.
    return {
      type: 'oauth',
      id: grant.id,
      orgId: grant.orgId,
      role: grant.role,
      scopes: grant.scopes,
      personId: grant.personId,
      storeIds: grant.storeIds,
      membershipChecked: true
    }
  }

  return {
    async claim (token: string): Promise<CredentialClaim | null | undefined> {
      if (token.startsWith('svc_') || token.split('.').length !== 3) return undefined
      let payload
      try {
        payload = await verify(token)
      } catch {
        return null
      }
      const { grant_id: grantId, sub, exp } = payload
      if (typeof grantId !== 'string' || typeof sub !== 'string') return null
      const claim: CredentialClaim = {
        markers: [marker.grant(grantId), marker.person(sub)],
        expiresAt: typeof exp === 'number' ? exp * 1000 : null,
        load: () => load(grantId, sub, claim)
      }
      return claim
    }
  }
}
