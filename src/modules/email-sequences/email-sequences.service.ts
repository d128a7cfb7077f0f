import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { toMs } from '../../lib/formats.js'
import { newId } from '../../lib/ids.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import { stepsOf, type EmailSequencesRepository, type SequenceRow, type Step } from './email-sequences.repository.js'
import { isDuplicateKey } from '../../db.js'

interface Deps { db: Knex, repo: EmailSequencesRepository, events: EventLog, clock: Clock }

export interface SequenceInput { name: string, steps: Step[], active?: boolean }

export function presentSequence (row: SequenceRow) {
  return {
    id: row.id,
    name: row.name,
    active: row.active_store_env_id !== null,
    steps: stepsOf(row).map((s) => ({ delayHours: s.delayHours, templateKey: s.templateKey, stopWhen: s.stopWhen ?? null })),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

/**
 * Review-request sequences (docs/contract/resources.md#email-sequences): steps of { delayHours, templateKey, stopWhen
 * }, the first counted from fulfilment and each later one from the step before. One sequence per store is active;
 * without one, review requests keep the configured single delay.
 */
export function emailSequencesService ({ db, repo, events, clock }: Deps) {
  /** Runs `work` (which returns the row it wrote) and appends its event in one transaction. */
  async function write (store: StoreEnv, type: 'created' | 'updated', work: (trx: Knex.Transaction) => Promise<SequenceRow>) {
    try {
      const row = await db.transaction(async (trx) => {
        const written = await work(trx)
        await events.append(trx, {
          orgId: store.orgId,
          storeEnvId: store.id,
          type: `email_sequence.${type}`,
          data: presentSequence(written)
        })
        return written
      })
      return presentSequence(row)
    } catch (err) {
      // The unique column allows one active sequence per store, also between two writers at the same instant.
      if (isDuplicateKey(err)) throw new errors.Conflict('Another sequence of this store is active: deactivate it first')
      throw err
    }
  }

  function rowOf (store: StoreEnv, id: string, input: SequenceInput, createdAt: number, now: number): SequenceRow {
    return {
      id,
      org_id: store.orgId,
      store_env_id: store.id,
      active_store_env_id: input.active ? store.id : null,
      name: input.name,
      steps: JSON.stringify(
        input.steps.map((s) => ({ delayHours: s.delayHours, templateKey: s.templateKey, ...(s.stopWhen ? { stopWhen: s.stopWhen } : {}) }))
      ),
      created_at: createdAt,
      updated_at: now
    }
  }

  async function found (storeId: string, id: string, trx: Knex = db, lock = false) {
    const row = await repo.find(storeId, id, trx, lock)
    if (!row) throw new errors.NotFound('Email sequence')
    return row
  }

  return {
    async list (storeId: string, query: PageQuery & { updatedSince?: string }) {
      const page = toPage(query)
      const { total, rows } = await repo.list(storeId, { updatedSince: toMs(query.updatedSince) }, page)
      return envelope(rows.map(presentSequence), total, page)
    },

    async get (storeId: string, id: string) {
      return presentSequence(await found(storeId, id))
    },

    async create (store: StoreEnv, input: SequenceInput) {
      const now = clock()
      const row = rowOf(store, newId('seq'), input, now, now)
      return write(store, 'created', async (trx) => {
        await repo.insert(trx, row)
        return row
      })
    },

    /** Replaces name, steps and whether it is active. Requests already under way keep following it. */
    async replace (store: StoreEnv, id: string, input: SequenceInput) {
      return write(store, 'updated', async (trx) => {
        // In the transaction and locking: a delete at the same moment comes before (404 here) or after, never between.
        const before = await found(store.id, id, trx, true)
        const row = rowOf(store, id, input, Number(before.created_at), clock())
        await repo.update(trx, row)
        return row
      })
    },

    async remove (store: StoreEnv, id: string) {
      await db.transaction(async (trx) => {
        const row = await found(store.id, id, trx, true)
        // Locking, as changes read it: a change and a delete at once queue on the row in one order (a plain read
        // here deadlocked against them), and a delete that comes second finds nothing (404, no second event).
        if (!(await repo.remove(trx, store.id, id))) throw new errors.NotFound('Email sequence')
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'email_sequence.deleted', data: presentSequence(row) })
      })
    }
  }
}
export type EmailSequencesService = ReturnType<typeof emailSequencesService>
