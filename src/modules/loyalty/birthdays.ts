import type { Knex } from 'knex'
import type { Clock } from '../../lib/clock.js'
import type { StoreEnv } from '../../types.js'
import type { LoyaltyService } from './loyalty.service.js'

/** A birthday missed while no worker ran (a restart, an outage) is still granted within this many days. */
export const BIRTHDAY_GRACE_DAYS = 3
const BATCH = 100
const DAY_MS = 86_400_000

interface Deps { db: Knex, loyalty: LoyaltyService, clock: Clock }

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** The (month, day) pairs celebrated on a date: 29 February birthdays fall on 28 February in other years. */
export function birthdaysOn (date: Date): Array<[number, number]> {
  const month = date.getUTCMonth() + 1
  const day = date.getUTCDate()
  const pairs: Array<[number, number]> = [[month, day]]
  if (month === 2 && day === 28 && !isLeap(date.getUTCFullYear())) pairs.push([2, 29])
  return pairs
}

interface Due { id: string, org_id: string, store_env_id: string, points: number }

/**
 * The daily birthday grant (docs/contract/resources.md#loyalty): each customer whose birthday fell in the last few days
 * (UTC) in a store with a birthday reward gets it once for that year. "Once" is the ledger's unique (customer,
 * 'birthday', year) entry, checked under the store's event lock: any number of passes, on any number of instances,
 * after any restart, grant it once. Each grant is its own transaction, so a pass stopped half-way loses nothing.
 */
export function birthdayJob ({ db, loyalty, clock }: Deps) {
  function due (month: number, day: number, year: number): Promise<Due[]> {
    return db('customers as c').join('loyalty_settings as s', 's.store_env_id', 'c.store_env_id')
      .where('s.birthday_points', '>', 0).where({ 'c.birthday_month': month, 'c.birthday_day': day }).whereNull('c.erased_at')
      .whereNotExists((q) =>
        q.select(db.raw('1')).from('loyalty_ledger as l')
          .whereRaw('l.store_env_id = c.store_env_id and l.customer_id = c.id').where({
            'l.kind': 'birthday',
            'l.idempotency_key': String(year)
          })
      )
      .orderBy('c.id').limit(BATCH).select('c.id', 'c.org_id', 'c.store_env_id', 's.birthday_points as points')
  }

  async function grantOne (row: Due, year: number): Promise<boolean> {
    const store = { id: row.store_env_id, orgId: row.org_id } as StoreEnv
    try {
      return await db.transaction(async (trx) => {
        const result = await loyalty.grant(trx, store, {
          customerId: row.id,
          kind: 'birthday',
          key: String(year),
          points: Number(row.points),
          reason: `Birthday reward ${year}`,
          event: { type: 'loyalty.birthday_reward', data: { year } }
        })
        return Boolean(result?.applied)
      })
    } catch (err) {
      // Erased since the query: nothing to grant.
      if ((err as { code?: string }).code === 'NOT_FOUND') return false
      throw err
    }
  }

  return {
    /** One pass; answers how many rewards it granted. */
    async run (): Promise<number> {
      let granted = 0
      const today = clock()
      for (let back = 0; back < BIRTHDAY_GRACE_DAYS; back++) {
        const date = new Date(today - back * DAY_MS)
        const year = date.getUTCFullYear()
        for (const [month, day] of birthdaysOn(date)) {
          for (;;) {
            const rows = await due(month, day, year)
            let progressed = 0
            for (const row of rows) if (await grantOne(row, year)) progressed++
            granted += progressed
            if (rows.length < BATCH || progressed === 0) break
          }
        }
      }
      return granted
    }
  }
}
export type BirthdayJob = ReturnType<typeof birthdayJob>
