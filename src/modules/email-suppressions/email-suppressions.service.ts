import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { toMs } from '../../lib/formats.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import {
  normalEmail,
  type EmailSuppressionsRepository,
  type SuppressionReason,
  type SuppressionRow
} from './email-suppressions.repository.js'

interface Deps { db: Knex, repo: EmailSuppressionsRepository, events: EventLog, clock: Clock }

export interface SuppressInput { orgId: string, storeEnvId: string, email: string, reason: SuppressionReason }

export function presentSuppression (row: SuppressionRow) {
  return { email: row.email, reason: row.reason, createdAt: iso(row.created_at)!, updatedAt: iso(row.updated_at)! }
}

function inTransaction<T> (db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Knex.Transaction) : db.transaction(work)
}

/** The suppression list: every mail the service sends checks it first (modules/email/email.sender.ts). */
export function emailSuppressionsService ({ db, repo, events, clock }: Deps) {
  /**
   * Adds `email` to the store's list (or changes its reason), with its event, in the caller's transaction when it
   * passes one (customer erasure, the one-click unsubscribe) or in one of its own.
   */
  async function suppress (trxOrDb: Knex, input: SuppressInput) {
    return inTransaction(trxOrDb, async (trx) => {
      const now = clock()
      const row: SuppressionRow = {
        org_id: input.orgId,
        store_env_id: input.storeEnvId,
        email: normalEmail(input.email),
        reason: input.reason,
        created_at: now,
        updated_at: now
      }
      const result = await repo.upsert(trx, row)
      const { created } = result
      if (result.changed) {
        await events.append(trx, {
          orgId: input.orgId,
          storeEnvId: input.storeEnvId,
          type: created ? 'email_suppression.created' : 'email_suppression.updated',
          data: presentSuppression(result.row)
        })
      }
      return { suppression: presentSuppression(result.row), created }
    })
  }

  /**
   * Customer erasure's step (docs/contract/resources.md#customers): the address stays on the list so no later mail
   * reaches the person, and nowhere else. No event: an event would hand the erased address to every subscriber.
   */
  async function suppressErased (trx: Knex.Transaction, subject: { orgId: string, storeEnvId: string, email: string | null }) {
    if (!subject.email) return
    const now = clock()
    await repo.upsert(trx, {
      org_id: subject.orgId,
      store_env_id: subject.storeEnvId,
      email: normalEmail(subject.email),
      reason: 'manual',
      created_at: now,
      updated_at: now
    })
  }

  return {
    suppress,
    suppressErased,

    async isSuppressed (storeId: string, email: string): Promise<boolean> {
      return (await repo.find(storeId, email)) !== undefined
    },

    async list (storeId: string, query: PageQuery & { reason?: string, updatedSince?: string }) {
      const page = toPage(query)
      const { total, rows } = await repo.list(storeId, { reason: query.reason, updatedSince: toMs(query.updatedSince) }, page)
      return envelope(rows.map(presentSuppression), total, page)
    },

    add (store: StoreEnv, input: { email: string, reason: SuppressionReason }) {
      return suppress(db, { orgId: store.orgId, storeEnvId: store.id, email: input.email, reason: input.reason })
    },

    async remove (store: StoreEnv, email: string) {
      await db.transaction(async (trx) => {
        const row = await repo.remove(trx, store.id, email)
        if (!row) throw new errors.NotFound('Suppression')
        await events.append(trx, {
          orgId: store.orgId,
          storeEnvId: store.id,
          type: 'email_suppression.deleted',
          data: presentSuppression(row)
        })
      })
    }
  }
}
export type EmailSuppressionsService = ReturnType<typeof emailSuppressionsService>
