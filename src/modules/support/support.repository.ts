import type { Knex } from 'knex'
import { iso } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { countAndPage } from '../../lib/pagination.js'

export type MailStatus = 'queued' | 'sent' | 'failed' | 'not_configured'

interface Row {
  id: string
  org_id: string
  store_env_id: string
  credential: string
  subject: string
  body: string
  failed_request_ids: string
  mail_status: MailStatus
  created_at: number
}

function present (row: Row) {
  return {
    id: row.id,
    storeEnvId: row.store_env_id,
    credential: row.credential,
    subject: row.subject,
    body: row.body,
    failedRequestIds: JSON.parse(row.failed_request_ids) as string[],
    mailStatus: row.mail_status,
    createdAt: iso(Number(row.created_at))!
  }
}
export type SupportRequest = ReturnType<typeof present>

export function supportRepository (db: Knex) {
  return {
    async create (
      input: {
        orgId: string
        storeEnvId: string
        credential: string
        subject: string
        body: string
        failedRequestIds: string[]
        mailStatus: MailStatus
        now: number
      },
      trx: Knex
    ): Promise<SupportRequest> {
      const row: Row = {
        id: newId('sup'),
        org_id: input.orgId,
        store_env_id: input.storeEnvId,
        credential: input.credential,
        subject: input.subject,
        body: input.body,
        failed_request_ids: JSON.stringify(input.failedRequestIds),
        mail_status: input.mailStatus,
        created_at: input.now
      }
      await trx('support_requests').insert(row)
      return present(row)
    },

    async setMailStatus (id: string, status: MailStatus, trx: Knex = db) {
      await trx('support_requests').where({ id }).update({ mail_status: status })
    },

    async list (storeId: string, filter: { since?: number }, page: { offset: number, limit: number }) {
      const base = db<Row>('support_requests').where({ store_env_id: storeId })
      if (filter.since !== undefined) base.where('created_at', '>=', filter.since)
      const { total, rows } = await countAndPage<Row>(base, page, (q) => q.orderBy('created_at', 'desc').orderBy('id', 'desc'))
      return { total, requests: rows.map(present) }
    }
  }
}
export type SupportRepository = ReturnType<typeof supportRepository>
