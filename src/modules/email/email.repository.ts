import type { Knex } from 'knex'
import { countAndPage } from '../../lib/pagination.js'
import type { TemplateKey } from './templates.js'

export const MESSAGE_STATUSES = ['queued', 'sent', 'failed', 'suppressed'] as const
export type MessageStatus = typeof MESSAGE_STATUSES[number]

export interface MessageRow {
  id?: number
  org_id: string
  store_env_id: string | null
  to: string
  subject: string
  kind: string
  status: MessageStatus
  reason: string | null
  unsubscribe_token_hash: string | null
  created_at: number
  updated_at: number
}

export interface TemplateRow {
  org_id: string
  store_env_id: string
  template_key: TemplateKey
  subject: string
  body: string
  updated_at: number
}

export interface MessageFilter { status?: string, kind?: string, updatedSince?: number | null, withOrgMail: boolean }

/** The message log (every mail the service sends) and the stores' own templates. */
export function emailRepository (db: Knex) {
  return {
    async insertMessage (trx: Knex, row: MessageRow): Promise<number> {
      const [id] = await trx('email_messages').insert(row)
      return Number(id)
    },

    /** Customer erasure: the log keeps that a mail went out, not to whom or about what. */
    async eraseRecipient (trx: Knex, storeId: string, email: string) {
      await trx('email_messages').where({ store_env_id: storeId }).whereRaw('lower(??) = ?', ['to', email.trim().toLowerCase()])
        .update({ to: '[erased]', subject: '[erased]' })
    },

    async settleMessage (trx: Knex, id: number, status: MessageStatus, reason: string, now: number) {
      await trx('email_messages').where({ id }).update({ status, reason, updated_at: now })
    },

    findByTokenHash (hash: string): Promise<MessageRow | undefined> {
      return db<MessageRow>('email_messages').where({ unsubscribe_token_hash: hash }).first()
    },

    /** A store's mail, with its organization's own mail (invitations) when the reader may see the whole org. */
    async listMessages (orgId: string, storeId: string, filter: MessageFilter, page: { offset: number, limit: number }) {
      const base = db<MessageRow>('email_messages').where((q) => {
        q.where({ store_env_id: storeId })
        if (filter.withOrgMail) q.orWhere((o) => o.where({ org_id: orgId }).whereNull('store_env_id'))
      })
      if (filter.status) base.where('status', filter.status)
      if (filter.kind) base.where('kind', filter.kind)
      if (filter.updatedSince != null) base.where('updated_at', '>=', filter.updatedSince)
      return countAndPage<MessageRow>(base, page, (q) => q.orderBy('id', 'desc'))
    },

    findTemplate (storeId: string, key: TemplateKey, trx: Knex = db): Promise<TemplateRow | undefined> {
      return trx<TemplateRow>('email_templates').where({ store_env_id: storeId, template_key: key }).first()
    },

    async putTemplate (trx: Knex, row: TemplateRow) {
      await trx('email_templates').insert(row).onConflict(['store_env_id', 'template_key']).merge(['subject', 'body', 'updated_at'])
    },

    async removeTemplate (trx: Knex, storeId: string, key: TemplateKey) {
      await trx('email_templates').where({ store_env_id: storeId, template_key: key }).delete()
    }
  }
}
export type EmailRepository = ReturnType<typeof emailRepository>
