import type { FastifyInstance } from 'fastify'

/** How long a test waits for the request to queue behind its lock before it reports that it did not. */
const GIVE_UP_MS = 60_000

/**
 * Waits until a statement naming `storeId` (knex's MySQL client writes the values into the statement) is queued
 * behind a lock the test holds: true; false when `work` ends first, or after a minute. A locking read the test's row
 * blocks is still in flight (MariaDB waits for a row read by its primary key while the optimizer reads it, state
 * "Statistics", without listing the transaction in innodb_trx); other waits show as `LOCK WAIT` in innodb_trx.
 */
export async function lockWaitOf (app: FastifyInstance, storeId: string, work: Promise<unknown>): Promise<boolean> {
  let ended = false
  work.then(() => { ended = true }, () => { ended = true })
  const naming = `%${storeId}%`
  const until = Date.now() + GIVE_UP_MS
  while (Date.now() < until) {
    const [reads] = await app.db.raw(
      `SELECT ID FROM information_schema.processlist WHERE ID <> CONNECTION_ID() AND INFO LIKE ?
        AND (INFO LIKE '%for update%' OR INFO LIKE '%lock in share mode%')`,
      [naming]
    ) as [unknown[]]
    const [waits] = await app.db.raw(
      'SELECT trx_id FROM information_schema.innodb_trx WHERE trx_state = ? AND trx_query LIKE ?',
      ['LOCK WAIT', naming]
    ) as [unknown[]]
    if (reads.length > 0 || waits.length > 0) return true
    if (ended) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return false
}
