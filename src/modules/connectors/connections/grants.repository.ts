import type { Knex } from 'knex'
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

/** expiresAt: when the provider's grant expires (ms), null when it does not. */
export type LiveGrant = GrantChoice & { memberRole: Role, expiresAt: number | null }

/** A live grant serves only its own person while their membership role is at least the grant's (decisions.md section 10). */
export function entitles (grant: LiveGrant, personId: string): boolean {
  return grant.personId === personId && roleRank(grant.memberRole) >= roleRank(grant.role)
}

export function grantsRepository (db: Knex) {
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

    /**
     * One query for the credential resolver and the token endpoint: our record is not revoked, the provider's
     * grant row still exists and has not expired, the client is the operator's or the grant's organization's own,
     * and the person is still a member (with the role, compared by `entitles`).
     */
    async findLive (id: string, now: number): Promise<LiveGrant | null> {
      const row = await db('oauth_grants as g')
        .join('oidc_models as m', function () { this.onVal('m.model', 'Grant').andOnVal('m.id_hash', sha256(id)) })
        .join('memberships as ms', function () { this.on('ms.org_id', 'g.org_id').andOn('ms.person_id', 'g.person_id') })
        .join('oauth_clients as c', 'c.id', 'g.client_id')
        .where('g.id', id).whereNull('g.revoked_at')
        .where((q) => { q.whereNull('m.expires_at').orWhere('m.expires_at', '>', now) })
        .where((q) => { q.whereNull('c.org_id').orWhere('c.org_id', db.ref('g.org_id')) })
        .first('g.*', 'ms.role as member_role', 'm.expires_at as grant_expires_at')
      if (!row) return null
      const expiresAt = row.grant_expires_at == null ? null : Number(row.grant_expires_at)
      return { ...toChoice(row as Row), memberRole: row.member_role as Role, expiresAt }
    },

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
      const { total, rows } = await countAndPage<Row & { client_name: string | null, person_email: string | null }>(base, page, (q) => q
        .leftJoin('oauth_clients as c', 'c.id', 'g.client_id')
        .leftJoin('people as p', 'p.id', 'g.person_id')
        .orderBy('g.created_at', 'desc').orderBy('g.id')
        .select('g.*', 'c.name as client_name', 'p.email as person_email'))
      return { total: Number(total), rows: rows.map((r) => ({ ...toChoice(r as Row), clientName: r.client_name as string | null, personEmail: r.person_email as string | null })) }
    }
  }
}
export type GrantsRepository = ReturnType<typeof grantsRepository>
