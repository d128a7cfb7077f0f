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

interface Row { id: number, org_id: string, at: number, action: string, actor: string, subject: string | null, ip: string | null, details: string | null }

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
