import type { Knex } from 'knex'
import { iso } from '../../lib/clock.js'
import { countAndPage } from '../../lib/pagination.js'

export interface AuditEntry {
  orgId: string
  action: string
  /** `api_key:<id>`, `oauth:<grant id>`, `person:<id>`, `cli`, `system`. */
  actor: string
  subject?: string | null
  ip?: string | null
  details?: Record<string, unknown>
}

interface Row {
  id: number
  org_id: string
  at: number
  action: string
  actor: string
  subject: string | null
  ip: string | null
  details: string | null
}

type NameQuery = (db: Knex, orgId: string, ids: string[]) => Promise<Array<{ id: string, name: string }>>

/** One query per kind of `kind:id` reference, always filtered by the organization that owns the log. */
const NAME_QUERIES: Record<string, NameQuery> = {
  api_key: (db, orgId, ids) => db('api_keys').where({ org_id: orgId }).whereIn('id', ids).select('id', 'name'),
  person: (db, orgId, ids) => db('people').join('memberships', 'memberships.person_id', 'people.id')
    .where('memberships.org_id', orgId).whereIn('people.id', ids).select('people.id as id', 'people.email as name'),
  store: (db, orgId, ids) => db('store_envs').where({ org_id: orgId }).whereIn('id', ids).select('id', 'name'),
  invitation: (db, orgId, ids) => db('invitations').where({ org_id: orgId }).whereIn('id', ids).select('id', 'email as name'),
  oauth_client: (db, orgId, ids) => db('oauth_clients').where({ org_id: orgId }).whereIn('id', ids).select('id', 'name'),
  // A connection is named by its client; a shared client (no organization) is named only through this org's grant.
  oauth: (db, orgId, ids) => db('oauth_grants').join('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_id')
    .where('oauth_grants.org_id', orgId).whereIn('oauth_grants.id', ids).select('oauth_grants.id as id', 'oauth_clients.name as name')
}

export function auditRepository (db: Knex, clock: () => number) {
  return {
    async record (entry: AuditEntry, trx: Knex = db): Promise<void> {
      await trx('audit_log').insert({
        org_id: entry.orgId,
        at: clock(),
        action: entry.action,
        actor: entry.actor,
        subject: entry.subject ?? null,
        ip: entry.ip ?? null,
        details: entry.details ? JSON.stringify(entry.details) : null
      })
    },

    /** The actions the organization's log holds, for the admin's action picker (index org_id, action, id). */
    async actions (orgId: string): Promise<string[]> {
      const rows = await db('audit_log').where({ org_id: orgId }).distinct('action').orderBy('action') as Array<{ action: string }>
      return rows.map((row) => row.action)
    },

    /**
     * Human names for the `kind:id` actors and subjects of an organization's log: one query per kind, each limited to
     * the organization, so an id that belongs elsewhere (or no longer exists) stays unresolved rather than naming
     * another tenant's key, person or store.
     */
    async names (orgId: string, refs: Iterable<string>): Promise<Map<string, string>> {
      const ids = new Map<string, Set<string>>()
      for (const ref of refs) {
        const at = ref.indexOf(':')
        if (at <= 0) continue
        const kind = ref.slice(0, at)
        if (!(kind in NAME_QUERIES)) continue
        if (!ids.has(kind)) ids.set(kind, new Set())
        ids.get(kind)!.add(ref.slice(at + 1))
      }
      const names = new Map<string, string>()
      await Promise.all([...ids].map(async ([kind, set]) => {
        const rows = await NAME_QUERIES[kind](db, orgId, [...set])
        for (const row of rows) names.set(`${kind}:${row.id}`, row.name)
      }))
      return names
    },

    async list (orgId: string, filter: { action?: string, offset: number, limit: number }) {
      const base = db<Row>('audit_log').where({ org_id: orgId })
      if (filter.action) base.where({ action: filter.action })
      const { total, rows } = await countAndPage<Row>(base, filter, (q) => q.orderBy('id', 'desc'))
      return {
        total: Number(total),
        entries: rows.map((row) => ({
          id: String(row.id),
          at: iso(row.at)!,
          action: row.action,
          actor: row.actor,
          subject: row.subject,
          ip: row.ip,
          details: row.details ? JSON.parse(row.details) as Record<string, unknown> : null
        }))
      }
    }
  }
}
export type AuditRepository = ReturnType<typeof auditRepository>
