import type { Knex } from 'knex'
import DataLoader from 'dataloader'
import { roleRank, type Role } from '../../../lib/permissions.js'
import { sha256 } from '../../../lib/secrets.js'
import { countAndPage } from '../../../lib/pagination.js'

/** What the person chose on the consent screen, keyed by the provider's grant id. */
export interface GrantChoice {
  id: string
  orgId: string
  personId: string
  clientId: string
  role: Role
  scopes: string[]
  storeIds: string[]
  createdAt: number
  lastUsedAt: number | null
  revokedAt: number | null
}

interface Row {
  id: string
  org_id: string
  person_id: string
  client_id: string
  role: Role
  scopes: string
  store_ids: string
  created_at: number
  last_used_at: number | null
  revoked_at: number | null
}

function toChoice (row: Row): GrantChoice {
  return {
    id: row.id,
    orgId: row.org_id,
    personId: row.person_id,
    clientId: row.client_id,
    role: row.role,
    scopes: JSON.parse(row.scopes) as string[],
    storeIds: JSON.parse(row.store_ids) as string[],
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at == null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at == null ? null : Number(row.revoked_at)
  }
}

/** expiresAt: when the provider's grant expires (ms), null when it does not; person: the grant's person as it is now. */
export type LiveGrant = GrantChoice & { memberRole: Role, expiresAt: number | null, person: { email: string, name: string | null } }

/**
 * A live grant serves only its own person while their membership role is at least the grant's
 * (docs/contract/oauth.md#grants).
 */
export function entitles (grant: LiveGrant, personId: string): boolean {
  return grant.personId === personId && roleRank(grant.memberRole) >= roleRank(grant.role)
}

/** The provider's Grant row (its payload, for the provider's own Grant model) and whether the API would honour it. */
export interface ProviderGrant { payload: string, live: LiveGrant | null }

/** A refresh token's row as the provider's adapter reads it: consumed when it was, or when it was rotated. */
export interface RefreshTokenRow { payload: string, consumedAt: number | string | null }

/** What decides whether a grant is live, selected by `joinLiveness` beside the provider's Grant row `m`. */
const LIVE_COLUMNS = ['g.*', 'm.expires_at as grant_expires_at', 'ms.role as member_role',
  'c.id as client_found', 'c.org_id as client_org_id', 'p.email as person_email', 'p.name as person_name']
/** The same and the provider's Grant itself, for the provider's Grant.find. */
const LIVENESS_COLUMNS = [...LIVE_COLUMNS, 'm.payload as grant_payload']

/** Our record of the grant `onGrant` names, and the membership, client and person it depends on. */
function joinLiveness (query: Knex.QueryBuilder, onGrant: (join: Knex.JoinClause) => void): Knex.QueryBuilder {
  return query
    .leftJoin('oauth_grants as g', function () { onGrant(this) })
    .leftJoin('memberships as ms', function () { this.on('ms.org_id', 'g.org_id').andOn('ms.person_id', 'g.person_id') })
    .leftJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .leftJoin('people as p', 'p.id', 'g.person_id')
}

/**
 * Live: our record is not revoked, the provider's grant has not expired, the client is the operator's or the
 * grant's organization's own, and the person is still a member (with the role, compared by `entitles`).
 */
function providerGrantOf (row: Record<string, unknown>, now: number): ProviderGrant {
  const expiresAt = row.grant_expires_at == null ? null : Number(row.grant_expires_at)
  const live = row.id != null && row.revoked_at == null && row.member_role != null && row.person_email != null &&
    (expiresAt == null || expiresAt > now) &&
    row.client_found != null && (row.client_org_id == null || row.client_org_id === row.org_id)
  return {
    payload: row.grant_payload as string,
    live: live
      ? {
          ...toChoice(row as unknown as Row),
          memberRole: row.member_role as Role,
          expiresAt,
          person: { email: row.person_email as string, name: row.person_name as string | null }
        }
      : null
  }
}

const ALONE = Symbol('read alone')

export function grantsRepository (db: Knex) {
  /**
   * One query for the credential resolver and the token endpoint: the provider's grant row and whether the grant is
   * live (`providerGrantOf`). Undefined when the provider has no such grant.
   */
  async function withProviderGrant (id: string, now: number): Promise<ProviderGrant | undefined> {
    const row = await joinLiveness(db('oidc_models as m'), (join) => join.onVal('g.id', id))
      .where({ 'm.model': 'Grant', 'm.id_hash': sha256(id) })
      .first(LIVENESS_COLUMNS)
    return row ? providerGrantOf(row, now) : undefined
  }

  /**
   * Liveness reads of the same tick share one query, as API keys' lookups do (api-keys.repository.ts): the credential
   * cache starts the backstop reads that fall due within a short window together, and a busy instance's tokens
   * reach that age at hundreds a second. A Grant row carries its own id in grant_id; one written before it did is
   * `ALONE`, read by withProviderGrant, which joins on the id it is asked for.
   */
  const liveRows = new DataLoader<string, Record<string, unknown> | typeof ALONE | undefined>(async (ids) => {
    const hashes = ids.map(sha256)
    const rows: Array<Record<string, unknown>> = await joinLiveness(db('oidc_models as m'), (join) => join.on('g.id', 'm.grant_id'))
      .where('m.model', 'Grant').whereIn('m.id_hash', hashes)
      .select(['m.id_hash as grant_hash', 'm.grant_id as grant_own_id', ...LIVE_COLUMNS])
    const byHash = new Map(rows.map((row) => [row.grant_hash as string, row]))
    return ids.map((id, i): Record<string, unknown> | typeof ALONE | undefined => {
      const row = byHash.get(hashes[i])
      return row && row.grant_own_id !== id ? ALONE : row
    })
  }, { cache: false, maxBatchSize: 200 })

  /**
   * A refresh grant's first read: the token (with its rotation record, which consumes it) and, in the same query,
   * its grant as withProviderGrant reads it, which the provider asks for next. `grant` is null when the token names
   * no grant or its Grant row predates rows carrying their own id in grant_id (the provider's read then asks).
   */
  async function refreshTokenWithGrant (
    idHash: string,
    now: number
  ): Promise<{ token: RefreshTokenRow, grant: ProviderGrant & { grantId: string } | null } | undefined> {
    const tokens = db('oidc_models as t')
      .leftJoin('oauth_refresh_rotations as r', 'r.old_token_hash', 't.id_hash')
      .leftJoin('oidc_models as m', function () {
        this.on('m.grant_id', 't.grant_id').andOnVal('m.model', 'Grant')
      })
    const row = await joinLiveness(tokens, (join) => join.on('g.id', 't.grant_id'))
      .where({ 't.model': 'RefreshToken', 't.id_hash': idHash })
      .first([
        't.payload as token_payload',
        't.consumed_at as token_consumed_at',
        'r.rotated_at as token_rotated_at',
        't.grant_id as token_grant_id',
        ...LIVENESS_COLUMNS
      ])
    if (!row) return undefined
    const token = {
      payload: row.token_payload as string,
      consumedAt: (row.token_consumed_at ?? row.token_rotated_at) as number | string | null
    }
    const grant = row.grant_payload == null ? null : { grantId: row.token_grant_id as string, ...providerGrantOf(row, now) }
    return { token, grant }
  }

  return {
    async insert (choice: Omit<GrantChoice, 'lastUsedAt' | 'revokedAt'>, trx: Knex = db) {
      await trx('oauth_grants').insert({
        id: choice.id,
        org_id: choice.orgId,
        person_id: choice.personId,
        client_id: choice.clientId,
        role: choice.role,
        scopes: JSON.stringify(choice.scopes),
        store_ids: JSON.stringify(choice.storeIds),
        created_at: choice.createdAt,
        last_used_at: null,
        revoked_at: null
      })
    },

    async find (id: string): Promise<GrantChoice | null> {
      const row = await db<Row>('oauth_grants').where({ id }).first()
      return row ? toChoice(row) : null
    },

    /** The grant if the API would still honour it (see withProviderGrant). */
    async findLive (id: string, now: number): Promise<LiveGrant | null> {
      const row = await liveRows.load(id)
      const found = row === ALONE ? await withProviderGrant(id, now) : row && providerGrantOf(row, now)
      return found?.live ?? null
    },

    withProviderGrant,
    refreshTokenWithGrant,

    async touch (id: string, now: number, everyMs: number) {
      await db('oauth_grants').where({ id })
        .where((q) => { q.whereNull('last_used_at').orWhere('last_used_at', '<', now - everyMs) })
        .update({ last_used_at: now })
    },

    /** True only for the call that revokes it, so the audit entry is written once. */
    async revoke (id: string, now: number, orgId?: string, trx: Knex = db): Promise<boolean> {
      const query = trx('oauth_grants').where({ id }).whereNull('revoked_at')
      if (orgId) query.where({ org_id: orgId })
      return (await query.update({ revoked_at: now })) === 1
    },

    /** Revokes every live grant the person made for the organization; returns their ids (for audit and cleanup). */
    async revokeAllOfPerson (orgId: string, personId: string, now: number, trx: Knex = db): Promise<string[]> {
      const rows = await trx('oauth_grants').where({ org_id: orgId, person_id: personId }).whereNull('revoked_at').select('id')
      const ids = rows.map((r) => r.id as string)
      if (ids.length) await trx('oauth_grants').whereIn('id', ids).whereNull('revoked_at').update({ revoked_at: now })
      return ids
    },

    async list (orgId: string, page: { offset: number, limit: number }) {
      const base = db('oauth_grants as g').where('g.org_id', orgId).whereNull('g.revoked_at')
      const { total, rows } = await countAndPage<Row & { client_name: string | null, person_email: string | null }>(base, page, (q) =>
        q
          .leftJoin('oauth_clients as c', 'c.id', 'g.client_id')
          .leftJoin('people as p', 'p.id', 'g.person_id')
          .orderBy('g.created_at', 'desc').orderBy('g.id')
          .select('g.*', 'c.name as client_name', 'p.email as person_email'))
      return {
        total: Number(total),
        rows: rows.map((r) => ({
          ...toChoice(r as Row),
          clientName: r.client_name as string | null,
          personEmail: r.person_email as string | null
        }))
      }
    }
  }
}
export type GrantsRepository = ReturnType<typeof grantsRepository>
