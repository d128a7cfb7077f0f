import type { Knex } from 'knex'
import type { AdapterPayload } from 'oidc-provider'
import { base62, newId } from '../../../lib/ids.js'
import { iso, type Clock } from '../../../lib/clock.js'
import { safeEqual, sha256 } from '../../../lib/secrets.js'
import { BoundedMap } from '../../../lib/bounded-map.js'
import { errors } from '../../../errors.js'
import { countAndPage, toPage, envelope, type PageQuery } from '../../../lib/pagination.js'

interface ClientRow {
  id: string
  org_id: string | null
  name: string
  secret_hash: string | null
  redirect_uris: string
  public: boolean | number
  created_by: string | null
  created_at: number
}

export interface CreateClientInput {
  name: string
  redirectUris: string[]
  public?: boolean
  orgId?: string | null
  createdBy?: string | null
}

/**
 * Redirect URIs match exactly: no wildcard host (which reads like a pattern but would name a literal `*` host, and
 * invites one), no userinfo (`https://good.example@evil.example/` misleads a reader about the host); https
 * everywhere except loopback during development (RFC 9700 section 4.1).
 */
function checkRedirectUri (uri: string): void {
  let url: URL
  try { url = new URL(uri) } catch { throw new errors.InvalidRequest(`redirect URI ${uri} is not a URL`) }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
  if (url.hash || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
    throw new errors.InvalidRequest(`redirect URI ${uri} must be https (http only for loopback) and carry no fragment`)
  }
  if (url.hostname.includes('*')) throw new errors.InvalidRequest(`redirect URI ${uri} must name one host: wildcards are not supported`)
  if (url.username || url.password || /^[^/]*\/\/[^/?#]*@/.test(uri)) {
    throw new errors.InvalidRequest(`redirect URI ${uri} must carry no user name or password`)
  }
}

/** How many clients' provider metadata an instance keeps (see `metadata`). */
const KEPT_CLIENTS = 10_000

/** OAuth clients of the automation connector: registered by the operator CLI or by an organization's admin. */
export function oauthClients (db: Knex, clock: Clock) {
  const kept = new BoundedMap<AdapterPayload>(KEPT_CLIENTS)

  function present (row: ClientRow) {
    return {
      id: row.id,
      name: row.name,
      redirectUris: JSON.parse(row.redirect_uris) as string[],
      public: Boolean(row.public),
      registeredBy: row.org_id === null ? 'operator' as const : 'organization' as const,
      createdAt: iso(row.created_at)!
    }
  }

  return {
    present,

    /** The secret is returned here only; a hash is stored. */
    async create (input: CreateClientInput) {
      if (input.redirectUris.length === 0) throw new errors.InvalidRequest('at least one redirect URI is required')
      input.redirectUris.forEach(checkRedirectUri)
      const secret = input.public ? null : `ocs_${base62(40)}`
      const row: ClientRow = {
        id: newId('ocl'),
        org_id: input.orgId ?? null,
        name: input.name,
        secret_hash: secret ? sha256(secret) : null,
        redirect_uris: JSON.stringify([...new Set(input.redirectUris)]),
        public: Boolean(input.public),
        created_by: input.createdBy ?? null,
        created_at: clock()
      }
      await db('oauth_clients').insert(row)
      return { ...present(row), clientId: row.id, clientSecret: secret }
    },

    async list (orgId: string, query: PageQuery) {
      const page = toPage(query)
      // The operator's clients are offered to every organization, so each sees them beside its own.
      const base = db<ClientRow>('oauth_clients').where((q) => q.where({ org_id: orgId }).orWhereNull('org_id'))
      const { total, rows } = await countAndPage<ClientRow>(base, page, (q) => q.orderBy('created_at', 'desc').orderBy('id'))
      return envelope(rows.map(present), total, page)
    },

    /**
     * Who registered the client: an organization (only its members may authorize it) or the operator
     * (`orgId` null: offered to every organization), docs/contract/oauth.md#client-ownership.
     */
    async registrar (id: string): Promise<{ name: string, orgId: string | null, orgName: string | null } | null> {
      const row = await db('oauth_clients as c').leftJoin('organizations as o', 'o.id', 'c.org_id')
        .where('c.id', id).first('c.name', 'c.org_id', 'o.name as org_name')
      return row
        ? { name: row.name as string, orgId: (row.org_id as string | null) ?? null, orgName: (row.org_name as string | null) ?? null }
        : null
    },

    async name (id: string): Promise<string | null> {
      const row = await db<ClientRow>('oauth_clients').where({ id }).first('name')
      return row?.name ?? null
    },

    /**
     * The provider's view of a client (metadata per RFC 7591); `client_secret` holds the hash, see compareSecret.
     * Asked on every token request. A client row never changes and is never deleted, so what an instance has read
     * stays true and is kept in memory (a refresh grant then makes one statement less); an unknown id is not
     * kept, so a client registered on another instance is found at once. A change that lets a client be edited
     * or removed must take this memory with it.
     */
    async metadata (id: string): Promise<AdapterPayload | undefined> {
      const held = kept.get(id)
      // A copy: the provider gets an object of its own, as it would from a query.
      if (held) return { ...held }
      const row = await db<ClientRow>('oauth_clients').where({ id }).first()
      if (!row) return undefined
      const payload: AdapterPayload = {
        client_id: row.id,
        client_name: row.name,
        redirect_uris: JSON.parse(row.redirect_uris) as string[],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: row.public ? 'none' : 'client_secret_basic',
        ...(row.public ? {} : { client_secret: row.secret_hash! })
      }
      kept.set(id, payload)
      return { ...payload }
    }
  }
}
export type OauthClients = ReturnType<typeof oauthClients>

/** Client secrets are stored as SHA-256 (they are 40 random base62 characters), compared in constant time. */
export function compareClientSecret (storedHash: string, presented: string): boolean {
  return safeEqual(storedHash, sha256(presented))
}
