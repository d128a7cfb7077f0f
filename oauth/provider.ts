import { createHash } from 'node:crypto'
import Provider, { errors as oidcErrors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import type { Knex } from 'knex'
import type { JWK } from 'jose'
import type { Clock } from '../src/lib/clock.js'
import { decrypt, encrypt, sha256 } from '../src/lib/secrets.js'
import { RESOURCES } from '../src/lib/permissions.js'
import type { PeopleRepository } from '../src/modules/account/index.js'
import type { Freshness } from '../src/lib/freshness.js'
import { knexAdapterFactory } from './adapter.js'
import {
  compareClientSecret,
  type OauthClients,
  entitles,
  type GrantChoice,
  type GrantsRepository,
  type LiveGrant,
  type ProviderGrant,
  type RefreshTokenRow
} from '../src/modules/connectors/index.js'
import { ACCESS_TOKEN_ALG } from './keys.js'
import { isDuplicateKey } from '../src/db.js'
import { providerRequest } from './request-context.js'

/**
 * The REST API's scope strings (docs/contract/tenancy-and-roles.md#scopes), as the resource server's scopes; read when
 * a provider is made, once every module has declared its resources.
 */
export function apiScopes (): string[] {
  return ['read', 'write', ...RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`])]
}
export const ACCESS_TOKEN_TTL_S = 3600
export const REFRESH_TOKEN_TTL_S = 90 * 86_400
/**
 * docs/contract/oauth.md#refresh-tokens: the grant lives until revoked; ten years is the provider's stand-in for
 * "never".
 */
export const GRANT_TTL_S = 10 * 366 * 86_400
/** A retried refresh with the just-rotated token within this window gets the same new pair. */
export const REFRESH_GRACE_MS = 30_000

export interface ProviderDeps {
  issuer: string
  audience: string
  secretKey: string
  db: Knex
  clock: Clock
  keys: JWK[]
  clients: OauthClients
  grants: GrantsRepository
  people: PeopleRepository
  onGrantRevoked: (grantId: string) => void
  fresh: Freshness
}

function cookieKeys (secretKey: string): string[] {
  return [createHash('sha256').update(`oidc-cookies:${secretKey}`).digest('base64url')]
}

interface GraceState { graceResponse?: Record<string, unknown> }

/** oidc-provider 9 configured per docs/contract/oauth.md#flows-and-endpoints. */
export function createProvider (deps: ProviderDeps): Provider {
  const apiScope = apiScopes().join(' ')
  const { db, clock, clients, grants, people, audience } = deps
  /**
   * The provider reads a request's grant (the adapter's Grant.find) moments before findAccount asks whether the API
   * would still honour it, and the token's claims and the response's store id ask again: one query answers all
   * three (grants.withProviderGrant), kept per request.
   */
  const checkedInRequest = new WeakMap<object, { grantId: string, live: LiveGrant | null }>()

  /** A refresh token's grant, read with the token (hooks.findRefreshToken) for the Grant.find that follows it. */
  const readWithToken = new WeakMap<object, ProviderGrant & { grantId: string }>()

  async function findRefreshToken (idHash: string): Promise<RefreshTokenRow | undefined> {
    const found = await grants.refreshTokenWithGrant(idHash, clock())
    const ctx = providerRequest.getStore()
    if (found?.grant && ctx) readWithToken.set(ctx, found.grant)
    return found?.token
  }

  async function findGrant (id: string): Promise<string | undefined> {
    const ctx = providerRequest.getStore()
    const early = ctx ? readWithToken.get(ctx) : undefined
    if (early) readWithToken.delete(ctx!)
    const found = early?.grantId === id ? early : await grants.withProviderGrant(id, clock())
    if (found && ctx) checkedInRequest.set(ctx, { grantId: id, live: found.live })
    return found?.payload
  }

  async function liveGrant (ctx: object, grantId: string): Promise<LiveGrant | null> {
    const checked = checkedInRequest.get(ctx)
    if (checked?.grantId === grantId) return checked.live
    const live = await grants.findLive(grantId, clock())
    checkedInRequest.set(ctx, { grantId, live })
    return live
  }

  async function grantOf (ctx: object, grantId: string): Promise<GrantChoice | null> {
    const checked = checkedInRequest.get(ctx)
    return checked?.grantId === grantId && checked.live ? checked.live : await grants.find(grantId)
  }

  /** When a refresh token was rotated and the response it was rotated into (sealed in its rotation record). */
  async function rotationOf (jti: string): Promise<{ rotatedAt: number, response: Record<string, unknown> } | undefined> {
    const row = await db('oauth_refresh_rotations').where({ old_token_hash: sha256(jti) }).first()
    if (!row) return undefined
    return {
      rotatedAt: Number(row.rotated_at),
      response: JSON.parse(decrypt(row.sealed_response, deps.secretKey)) as Record<string, unknown>
    }
  }

  async function findAccount (
    ctx: KoaContextWithOIDC,
    sub: string,
    token?: { kind: string, consumed?: unknown, jti?: string, grantId?: string }
  ) {
    // A code or refresh token is redeemed only under a grant the API would still honour: not revoked, the
    // person still a member with the role, the client the operator's or the organization's own. Without an
    // account the provider answers invalid_grant.
    let grant: LiveGrant | null = null
    if (token?.grantId) {
      grant = await liveGrant(ctx, token.grantId)
      if (!grant || !entitles(grant, sub)) return undefined
    }
    if (token?.kind === 'RefreshToken' && token.consumed && token.jti) {
      // Reuse of a rotated refresh token: inside the grace window answer with the pair it was rotated into
      // (the provider would otherwise revoke the grant); after it, let the provider refuse and revoke.
      const rotation = await rotationOf(token.jti)
      if (rotation && clock() - rotation.rotatedAt <= REFRESH_GRACE_MS) {
        ;(ctx.state as GraceState).graceResponse = rotation.response
        throw new oidcErrors.InvalidGrant('refresh token already rotated')
      }
    }
    // Under a live grant the person is the grant's own (entitles compared the ids), read in the same query.
    const person = grant ? { id: grant.personId, ...grant.person } : await people.findPerson(sub)
    if (!person) return undefined
    return { accountId: person.id, claims: async () => ({ sub: person.id, email: person.email, name: person.name ?? undefined }) }
  }

  const configuration: Configuration = {
    adapter: knexAdapterFactory(db, clock, {
      findClient: (id) => clients.metadata(id),
      findGrant,
      findRefreshToken,
      onGrantRevoked: deps.onGrantRevoked
    }, deps.fresh),
    jwks: { keys: deps.keys as Configuration['jwks'] extends { keys: infer K } | undefined ? K : never },
    cookies: {
      keys: cookieKeys(deps.secretKey),
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' }
    },
    findAccount,
    claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
    scopes: ['openid', 'offline_access'],
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      // A client may introspect only its own tokens (no separate resource servers exist here).
      introspection: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      resourceIndicators: {
        enabled: true,
        // No `resource` parameter needed: every token is for the REST API.
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== audience) throw new oidcErrors.InvalidTarget()
          return {
            scope: apiScope,
            audience,
            accessTokenTTL: ACCESS_TOKEN_TTL_S,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: ACCESS_TOKEN_ALG } }
          }
        }
      }
    },
    // Each authorization makes a new connection with its own choice of organization, stores and role.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined
    },
    issueRefreshToken: async (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    rotateRefreshToken: true,
    extraTokenClaims: async (ctx, token) => {
      if (token.kind !== 'AccessToken' || !('grantId' in token) || !token.grantId) return undefined
      const choice = await grantOf(ctx, token.grantId as string)
      return choice ? { grant_id: choice.id, org_id: choice.orgId, role: choice.role, store_ids: choice.storeIds } : undefined
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: 14 * 86_400,
      Grant: GRANT_TTL_S,
      RefreshToken: REFRESH_TOKEN_TTL_S
    },
    clientBasedCORS: () => false,
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    renderError: async (ctx, out) => {
      ctx.type = 'html'
      ctx.body = errorPage(String(out.error), String(out.error_description ?? ''))
    }
  }

  const provider = new Provider(deps.issuer, configuration)
  // The mount (oauth/index.ts) overwrites the forwarded headers with PUBLIC_URL and fastify's client IP.
  provider.proxy = true
  provider.Client.prototype.compareClientSecret = function (this: { clientSecret?: string }, actual: string) {
    return Promise.resolve(Boolean(this.clientSecret) && compareClientSecret(this.clientSecret!, actual))
  } as never

  provider.use((ctx, next) => providerRequest.run(ctx, next))
  provider.use(async (ctx, next) => {
    if (ctx.path === '/auth' && ctx.method === 'GET') keepOfflineAccess(ctx as unknown as KoaContextWithOIDC)
    if (ctx.path === '/token' && ctx.method === 'POST') ignoreBearer(ctx.headers)
    await next()
    if (ctx.path === '/token' && ctx.method === 'POST') await afterToken(ctx as unknown as KoaContextWithOIDC)
  })

  /**
   * oidc-provider drops `offline_access` unless prompt includes consent; automation platforms never send it
   * (docs/contract/oauth.md#refresh-tokens), and our consent screen is always shown, so ask for it on their behalf.
   */
  function keepOfflineAccess (ctx: KoaContextWithOIDC) {
    const scope = typeof ctx.query.scope === 'string' ? ctx.query.scope.split(' ') : []
    const prompt = typeof ctx.query.prompt === 'string' ? ctx.query.prompt.split(' ').filter(Boolean) : []
    if (scope.includes('offline_access') && !prompt.includes('consent') && !prompt.includes('none')) {
      const req = ctx.req as typeof ctx.req & { originalUrl?: string }
      const mount = req.originalUrl ? req.originalUrl.slice(0, req.originalUrl.indexOf(ctx.url)) : ''
      ctx.query = { ...ctx.query, prompt: [...prompt, 'consent'].join(' ') }
      // oidc-provider finds its mount path by locating ctx.url inside originalUrl; keep them consistent.
      if (req.originalUrl) req.originalUrl = mount + ctx.url
    }
  }

  /**
   * Zapier's usual app template sends the old access token as `Authorization: Bearer …` on its refresh call, with the
   * client credentials in the body; oidc-provider counts that header as a second client authentication and answers 400.
   * A Bearer never authenticates a client here, so it is ignored (docs/contract/oauth.md#token-endpoint); Basic stays.
   */
  function ignoreBearer (headers: Record<string, string | string[] | undefined>) {
    if (typeof headers.authorization === 'string' && /^bearer(\s|$)/i.test(headers.authorization.trim())) delete headers.authorization
  }

  async function afterToken (ctx: KoaContextWithOIDC) {
    const grace = (ctx.state as GraceState).graceResponse
    if (grace) {
      ctx.status = 200
      ctx.remove('WWW-Authenticate')
      ctx.body = grace
      return
    }
    const body = ctx.body as Record<string, unknown> | undefined
    if (ctx.status !== 200 || !body?.access_token) return
    const grantId = ctx.oidc.entities.Grant?.jti
    const choice = grantId ? await grantOf(ctx, grantId) : null
    if (choice) body.store_env_id = choice.storeIds[0]
    const rotated = ctx.oidc.entities.RotatedRefreshToken
    if (!rotated) return
    try {
      await db('oauth_refresh_rotations').insert({
        old_token_hash: sha256(rotated.jti), sealed_response: encrypt(JSON.stringify(body), deps.secretKey), rotated_at: clock()
      })
    } catch (err) {
      if (!isDuplicateKey(err)) throw err
      // Another request rotated the same token first (the adapter's consume): both callers get its pair, as a
      // retry inside the grace window would, and the successor made here is withdrawn.
      await ctx.oidc.entities.RefreshToken?.destroy()
      const first = await rotationOf(rotated.jti)
      if (first) {
        ctx.body = first.response
      } else {
        // Its record already cleared (a day on): nothing to answer with but the refusal a late reuse gets.
        ctx.status = 400
        ctx.body = { error: 'invalid_grant', error_description: 'refresh token already rotated' }
      }
    }
  }

  provider.on('grant.revoked', (_ctx, grantId: string) => deps.onGrantRevoked(grantId))
  return provider
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
export function escapeHtml (value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c])
}

function errorPage (error: string, description: string): string {
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization error</title></head>' +
    `<body><main><h1>Authorization error</h1><p><strong>${escapeHtml(error)}</strong></p><p>${escapeHtml(description)}</p></main></body></html>`
}
