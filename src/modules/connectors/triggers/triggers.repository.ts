import type { Knex } from 'knex'
import { isMysql } from '../../../db.js'
import { toEvent, type EventRecord } from '../../events/index.js'

/** Created by migrations/20261123000200_events.ts (knex's default name for that index). */
export const POLL_INDEX = 'events_store_env_id_type_id_index'

/** Reads the shared event log for polling; the store is always an explicit argument. */
export function triggersRepository (db: Knex) {
  /**
   * The (store_env_id, type, id) index answers both the filter and the order, so a poll reads `limit` index entries
   * however many events the store has. MariaDB otherwise prefers (store_env_id, id) and walks every newer event of
   * other types; the hint keeps a rare type as cheap as a common one (test/connectors/polling-plan.test.ts).
   */
  function newestQuery (storeEnvId: string, type: string, limit: number) {
    const table = isMysql(db) ? db.raw('?? FORCE INDEX (??)', ['events', POLL_INDEX]) : db.raw('?? INDEXED BY ??', ['events', POLL_INDEX])
    return db.from(table)
      .select('id', 'seq', 'org_id', 'store_env_id', 'type', 'data', 'created_at')
      .where({ store_env_id: storeEnvId, type })
      .orderBy('id', 'desc')
      .limit(limit)
  }

  return {
    newestQuery,

    async newest (storeEnvId: string, type: string, limit: number): Promise<EventRecord[]> {
      return (await newestQuery(storeEnvId, type, limit)).map(toEvent)
    }
  }
}
export type TriggersRepository = ReturnType<typeof triggersRepository>
