import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { base62, newId } from '../../lib/ids.js'
import { iso, type Clock } from '../../lib/clock.js'
import { parseDateTime } from '../../lib/formats.js'
import { safeEqual, sha256 } from '../../lib/secrets.js'
import { isValidScope, RESOURCES, roleRank, scopesWithin, type Role } from '../../lib/permissions.js'
import { toPage, envelope, type PageQuery } from '../../lib/pagination.js'
import type { AuditRepository } from '../audit/index.js'
import { marker, type Freshness } from '../../lib/freshness.js'
import { actorOf, type Credential, type CredentialClaim, type Log } from '../../types.js'
import type { ApiKeyRow, ApiKeysRepository } from './api-keys.repository.js'

export const KEY_PREFIX = 'svc_'
const SECRET_LENGTH = 40
const MAX_EXPIRY_MS = 5 * 366 * 86_400_000
const TOUCH_EVERY_MS = 60_000

export type KeyStatus = 'active' | 'expired' | 'revoked'

export interface CreateKeyInput { name: string, role: Role, scopes?: string[], expiresAt?: string }

interface Deps { db: Knex, repo: ApiKeysRepository, audit: AuditRepository, clock: Clock, fresh: Freshness, log: Log }

export function statusOf (row: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, now: number): KeyStatus {
  if (row.revoked_at != null) return 'revoked'
  if (row.expires_at != null && Number(row.expires_at) <= now) return 'expired'
  return 'active'
}

export function apiKeysService ({ db, repo, audit, clock, fresh, log }: Deps) {
  function present (row: ApiKeyRow) {
    return {
      id: row.id,
      name: row.name,
      role: row.role,
      scopes: JSON.parse(row.scopes) as string[],
      prefix: `${KEY_PREFIX}${row.prefix}`,
      status: statusOf(row, clock()),
      createdAt: iso(row.created_at)!,
      createdBy: row.created_by,
      expiresAt: iso(row.expires_at),
      firstUsedAt: iso(row.first_used_at),
      lastUsedAt: iso(row.last_used_at),
      revokedAt: iso(row.revoked_at)
    }
  }

  function checkExpiry (expiresAt: string | undefined, now: number): number | null {
    if (expiresAt === undefined) return null
    const at = parseDateTime(expiresAt)
    if (at === null) throw new errors.InvalidExpiry('expiresAt is not an ISO 8601 date-time with a time zone, e.g. 2027-01-31T00:00:00Z')
    if (at <= now) throw new errors.InvalidExpiry('expiresAt must be in the future')
    if (at - now > MAX_EXPIRY_MS) throw new errors.InvalidExpiry('expiresAt must be within 5 years')
    return at
  }

  /**
   * docs/contract/tenancy-and-roles.md#no-escalation: never mint a credential with more authority than the one asking.
   */
  function checkAuthority (creator: Credential, role: Role, scopes: string[]) {
    if (role === 'owner' || roleRank(role) > roleRank(creator.role)) throw new errors.RoleEscalation()
    const unknown = scopes.find((scope) => !isValidScope(scope))
    if (unknown !== undefined) throw new errors.InvalidScope(unknown, RESOURCES.join(', '))
    if (!scopesWithin(creator.scopes, scopes)) throw new errors.ScopeEscalation()
  }

  /**
   * docs/contract/tenancy-and-roles.md#no-escalation: a key minted by an expiring key expires no later than it
   * (refused, never clamped).
   */
  function checkLifetime (creatorExpiresAt: number | null | undefined, expiresAt: number | null) {
    if (creatorExpiresAt == null) return
    if (expiresAt === null || expiresAt > creatorExpiresAt) throw new errors.ExpiryExceedsCredential(iso(creatorExpiresAt))
  }

  async function load (hash: string, ip: string | null): Promise<Credential | null> {
    const row = await repo.findBySecretHash(hash)
    if (!row || !safeEqual(row.secret_hash, hash)) return null
    const now = clock()
    if (statusOf(row, now) !== 'active') return null
    if (row.first_used_at == null) {
      // Once per key ever (and only on a request that found no cached credential): awaited, so the audit log
      // shows the first use by the time its response is out.
      if (await repo.markFirstUse(row.id, now)) {
        await audit.record({
          orgId: row.org_id,
          action: 'api_key.first_used',
          actor: `api_key:${row.id}`,
          subject: `api_key:${row.id}`,
          ip
        })
      }
    } else if (Number(row.last_used_at ?? 0) < now - TOUCH_EVERY_MS) {
      // Bookkeeping only: the request does not wait for it.
      repo.touch(row.id, now, TOUCH_EVERY_MS).catch((err: Error) =>
        log.warn({ err: { message: err.message } }, 'recording a key use failed')
      )
    }
    return {
      type: 'api_key',
      id: row.id,
      orgId: row.org_id,
      role: row.role,
      scopes: JSON.parse(row.scopes) as string[],
      personId: null,
      storeIds: null,
      expiresAt: row.expires_at == null ? null : Number(row.expires_at)
    }
  }

  return {
    present,

    async create (
      creator: Credential | { type: 'cli', orgId: string, role: Role, scopes: string[] },
      input: CreateKeyInput,
      ip: string | null
    ) {
      const now = clock()
      const scopes = [...new Set(input.scopes ?? [])]
      if (creator.type !== 'cli') checkAuthority(creator as Credential, input.role, scopes)
      else if (scopes.some((s) => !isValidScope(s))) {
        throw new errors.InvalidScope(scopes.find((s) => !isValidScope(s))!, RESOURCES.join(', '))
      }
      const expiresAt = checkExpiry(input.expiresAt, now)
      if (creator.type !== 'cli') checkLifetime((creator as Credential).expiresAt, expiresAt)
      const secret = KEY_PREFIX + base62(SECRET_LENGTH)
      const row: ApiKeyRow = {
        id: newId('key'),
        org_id: creator.orgId,
        name: input.name,
        role: input.role,
        scopes: JSON.stringify(scopes),
        prefix: secret.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8),
        secret_hash: sha256(secret),
        expires_at: expiresAt,
        revoked_at: null,
        first_used_at: null,
        last_used_at: null,
        created_by: creator.type === 'cli' ? 'cli' : actorOf(creator as Credential),
        created_at: now
      }
      await db.transaction(async (trx) => {
        await repo.insert(row, trx)
        await audit.record({
          orgId: row.org_id,
          action: 'api_key.created',
          actor: row.created_by!,
          subject: `api_key:${row.id}`,
          ip,
          details: { name: row.name, role: row.role, scopes, expiresAt: iso(expiresAt) }
        }, trx)
      })
      return { ...present(row), secret }
    },

    async list (orgId: string, query: PageQuery) {
      const page = toPage(query)
      const { total, rows } = await repo.list(orgId, page)
      return envelope(rows.map(present), total, page)
    },

    async get (orgId: string, id: string) {
      const row = await repo.find(orgId, id)
      if (!row) throw new errors.NotFound('API key')
      return present(row)
    },

    async revoke (actor: Credential, id: string, ip: string | null) {
      const row = await db.transaction(async (trx) => {
        const revoked = await repo.revoke(actor.orgId, id, clock(), trx)
        const row = await repo.find(actor.orgId, id, trx)
        if (!row) throw new errors.NotFound('API key')
        if (revoked) {
          await audit.record({ orgId: actor.orgId, action: 'api_key.revoked', actor: actorOf(actor), subject: `api_key:${id}`, ip }, trx)
        }
        return row
      })
      // After the commit, so an instance that sees the new marker also sees the revocation (lib/freshness.ts).
      await fresh.bump([marker.key(row.secret_hash)])
      return present(row)
    },

    /**
     * The credential resolver for `svc_` secrets: the marker is named by the secret's hash, so the auth pipeline
     * can check freshness before any lookup; loading is one indexed lookup, then state checks.
     */
    claim (secret: string, ip: string | null): CredentialClaim | undefined {
      if (!secret.startsWith(KEY_PREFIX)) return undefined
      const hash = sha256(secret)
      return { markers: [marker.key(hash)], load: () => load(hash, ip) }
    },

    async authenticate (secret: string, ip: string | null): Promise<Credential | null | undefined> {
      const claim = this.claim(secret, ip)
      return claim && claim.load()
    }
  }
}
export type ApiKeysService = ReturnType<typeof apiKeysService>
