import type { FastifyInstance } from 'fastify'

export interface InnodbTrx { trx_state: string, trx_isolation_level: string }

/**
 * Waits until InnoDB reports a transaction waiting for a lock in a statement naming `storeId` (knex's MySQL client
 * writes the values into the statement), or until `work` ends without having waited: then null. For tests that hold
 * a row in a transaction of their own and must know a request is queued behind it before they let it go.
 */
export async function lockWaitOf (app: FastifyInstance, storeId: string, work: Promise<unknown>): Promise<InnodbTrx | null> {
  let ended = false
  work.then(() => { ended = true }, () => { ended = true })
  for (;;) {
    const [rows] = await app.db.raw(
      'SELECT trx_state, trx_isolation_level FROM information_schema.innodb_trx WHERE trx_state = ? AND trx_query LIKE ?',
      ['LOCK WAIT', `%${storeId}%`]
    ) as [InnodbTrx[]]
    if (rows.length > 0) return rows[0]
    if (ended) return null
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
