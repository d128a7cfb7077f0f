import type { Knex } from 'knex'
import { newId } from '../../lib/ids.js'
import type { Role } from '../../lib/permissions.js'

import type { Person } from '../../types.js'
import { countAndPage } from '../../lib/pagination.js'
import { lockForWrite } from '../../lib/bulk.js'

export type { Person }
export interface Member { personId: string, email: string, name: string | null, role: Role, joinedAt: number }

/** People, organizations and memberships: who may act for which organization, and with which role. */
export function peopleRepository (db: Knex) {
  return {
    async createOrganization (name: string, now: number, trx: Knex = db) {
      const org = { id: newId('org'), name, created_at: now }
      await trx('organizations').insert(org)
      return { id: org.id, name, createdAt: now }
    },

    async findOrganization (id: string) {
      const row = await db('organizations').where({ id }).first()
      return row ? { id: row.id as string, name: row.name as string } : null
    },

    async findPersonByEmail (email: string): Promise<Person | null> {
      const row = await db('people').where({ email: email.toLowerCase() }).first()
      return row
        ? { id: row.id, email: row.email, name: row.name, passwordHash: row.password_hash, createdAt: Number(row.created_at) }
        : null
    },

    async findPerson (id: string): Promise<Person | null> {
      const row = await db('people').where({ id }).first()
      return row
        ? { id: row.id, email: row.email, name: row.name, passwordHash: row.password_hash, createdAt: Number(row.created_at) }
        : null
    },

    async createPerson (
      input: { email: string, name?: string | null, passwordHash: string | null, now: number },
      trx: Knex = db
    ): Promise<Person> {
      const person = {
        id: newId('usr'),
        email: input.email.toLowerCase(),
        name: input.name ?? null,
        password_hash: input.passwordHash,
        created_at: input.now
      }
      await trx('people').insert(person)
      return { id: person.id, email: person.email, name: person.name, passwordHash: person.password_hash, createdAt: input.now }
    },

    async setPassword (personId: string, passwordHash: string, trx: Knex = db) {
      await trx('people').where({ id: personId }).update({ password_hash: passwordHash })
    },

    async addMembership (orgId: string, personId: string, role: Role, now: number, trx: Knex = db) {
      await trx('memberships').insert({ id: newId('mem'), org_id: orgId, person_id: personId, role, created_at: now })
    },

    async membershipRole (orgId: string, personId: string, trx: Knex = db): Promise<Role | null> {
      const row = await trx('memberships').where({ org_id: orgId, person_id: personId }).first('role')
      return row ? row.role as Role : null
    },

    async setRole (orgId: string, personId: string, role: Role, trx: Knex = db) {
      return trx('memberships').where({ org_id: orgId, person_id: personId }).update({ role })
    },

    async organizationsOf (personId: string) {
      const rows = await db('memberships as m').join('organizations as o', 'o.id', 'm.org_id')
        .where('m.person_id', personId).orderBy('o.name').select('o.id', 'o.name', 'm.role')
      return rows.map((r) => ({ id: r.id as string, name: r.name as string, role: r.role as Role }))
    },

    async listMembers (orgId: string, page: { offset: number, limit: number }) {
      const base = db('memberships as m').join('people as p', 'p.id', 'm.person_id').where('m.org_id', orgId)
      const { total, rows } = await countAndPage<{ id: string, email: string, name: string | null, role: Role, created_at: number }>(
        base,
        page,
        (q) =>
          q.orderBy('m.created_at').orderBy('p.id')
            .select('p.id', 'p.email', 'p.name', 'm.role', 'm.created_at')
      )
      const members: Member[] = rows.map((r) => ({
        personId: r.id,
        email: r.email,
        name: r.name,
        role: r.role,
        joinedAt: Number(r.created_at)
      }))
      return { total: Number(total), members }
    },

    /**
     * Holds the organization's row until `trx` ends (MySQL; SQLite's single writer already is the lock): changes to
     * its memberships take turns, so each checks the last-owner rule against what the one before it committed. Taken
     * before any plain read, it also makes the transaction's snapshot come after that one (lib/bulk.ts `lockStore`).
     */
    async lockOrganization (orgId: string, trx: Knex.Transaction): Promise<void> {
      await lockForWrite(trx('organizations').where({ id: orgId }), true).first('id')
    },

    async countOwners (orgId: string, trx: Knex = db): Promise<number> {
      const [{ n }] = await trx('memberships').where({ org_id: orgId, role: 'owner' }).count<Array<{ n: number }>>({ n: '*' })
      return Number(n)
    },

    async removeMembership (orgId: string, personId: string, trx: Knex = db): Promise<boolean> {
      return (await trx('memberships').where({ org_id: orgId, person_id: personId }).delete()) === 1
    }
  }
}
export type PeopleRepository = ReturnType<typeof peopleRepository>
