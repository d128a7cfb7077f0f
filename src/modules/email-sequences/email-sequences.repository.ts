import { lockForWrite } from '../../lib/bulk.js'
import type { Knex } from 'knex'
import { countAndPage } from '../../lib/pagination.js'

export interface Step { delayHours: number, templateKey: 'review_request' | 'review_reminder', stopWhen?: 'reviewed' | null }

export interface SequenceRow {
  id: string
  org_id: string
  store_env_id: string
  active_store_env_id: string | null
  name: string
  steps: string
  created_at: number
  updated_at: number
}

export interface Sequence { id: string, steps: Step[] }

export function stepsOf (row: Pick<SequenceRow, 'steps'>): Step[] {
  return JSON.parse(row.steps) as Step[]
}

export function emailSequencesRepository (db: Knex) {
  return {
    /** With `lock`, a locking read (lib/bulk.ts): a replace and a delete of one sequence then take turns. */
    find (storeId: string, id: string, trx: Knex = db, lock = false): Promise<SequenceRow | undefined> {
      return lockForWrite(trx<SequenceRow>('email_sequences').where({ store_env_id: storeId, id }), lock).first()
    },

    /** Any sequence of any store by id (the scheduler follows the one an order started on). */
    async byId (id: string, trx: Knex = db): Promise<Sequence | null> {
      const row = await trx<SequenceRow>('email_sequences').where({ id }).first()
      return row ? { id: row.id, steps: stepsOf(row) } : null
    },

    /** The sequence review requests of the store follow now, or null (the configured single delay). */
    async active (storeId: string, trx: Knex = db): Promise<Sequence | null> {
      const row = await trx<SequenceRow>('email_sequences').where({ active_store_env_id: storeId }).first()
      return row ? { id: row.id, steps: stepsOf(row) } : null
    },

    async list (storeId: string, filter: { updatedSince?: number | null }, page: { offset: number, limit: number }) {
      const base = db<SequenceRow>('email_sequences').where({ store_env_id: storeId })
      if (filter.updatedSince != null) base.where('updated_at', '>=', filter.updatedSince)
      return countAndPage<SequenceRow>(base, page, (q) => q.orderBy('updated_at', 'desc').orderBy('id'))
    },

    async insert (trx: Knex, row: SequenceRow) {
      await trx('email_sequences').insert(row)
    },

    async update (trx: Knex, row: SequenceRow) {
      await trx('email_sequences').where({ store_env_id: row.store_env_id, id: row.id }).update({
        name: row.name,
        steps: row.steps,
        active_store_env_id: row.active_store_env_id,
        updated_at: row.updated_at
      })
    },

    async remove (trx: Knex, storeId: string, id: string): Promise<boolean> {
      return (await trx('email_sequences').where({ store_env_id: storeId, id }).delete()) === 1
    }
  }
}
export type EmailSequencesRepository = ReturnType<typeof emailSequencesRepository>
