import type { Knex } from 'knex'
import type { Role } from '../../lib/permissions.js'

/** The organization row and the owner list; memberships themselves are the people repository's. */
export function orgsRepository (db: Knex) {
  return {
    async find (orgId: string, trx: Knex = db) {
      const row = await trx('organizations').where({ id: orgId }).first('id', 'name', 'created_at')
      return row ? { id: row.id as string, name: row.name as string, createdAt: Number(row.created_at) } : null
    },

    async owners (orgId: string) {
      const rows = await db('memberships as m').join('people as p', 'p.id', 'm.person_id')
        .where({ 'm.org_id': orgId, 'm.role': 'owner' }).orderBy('m.created_at').orderBy('p.id').select('p.id', 'p.email')
      return rows.map((r) => ({ id: r.id as string, email: r.email as string }))
    },

    async rename (orgId: string, name: string, trx: Knex) {
      await trx('organizations').where({ id: orgId }).update({ name })
    },

    /**
     * The roles of these people in the organization, their membership rows locked until the transaction ends (MySQL),
     * so two transfers by one owner cannot both pass their checks.
     */
    async lockedRoles (orgId: string, personIds: string[], trx: Knex.Transaction): Promise<Map<string, Role>> {
      const query = trx('memberships').where({ org_id: orgId }).whereIn('person_id', personIds).select('person_id', 'role')
      const rows = await (trx.client.config.client === 'mysql2' ? query.forUpdate() : query)
      return new Map(rows.map((r: { person_id: string, role: Role }) => [r.person_id, r.role]))
    }
  }
}
export type OrgsRepository = ReturnType<typeof orgsRepository>
