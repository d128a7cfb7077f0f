import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import type { Clock } from '../../lib/clock.js'
import { generatePassword, type PasswordHasher } from '../../lib/passwords.js'
import { KEY_ROLES, type Role } from '../../lib/permissions.js'
import type { ApiKeysService } from '../api-keys/index.js'
import type { AuditRepository } from '../audit/index.js'
import type { PeopleRepository } from './people.repository.js'
import type { StoresRepository } from './stores.repository.js'
import { marker, type Freshness } from '../../lib/freshness.js'

interface Deps {
  db: Knex
  people: PeopleRepository
  stores: StoresRepository
  audit: AuditRepository
  keys: ApiKeysService
  clock: Clock
  hash: PasswordHasher
  fresh: Freshness
}

/**
 * What an operator who lost the first-run output needs (docs/contract/operations.md#operator-command-line): find
 * organizations and stores, make a key, give an owner a new password. Everything is audited with the actor `cli`.
 */
export function operatorService ({ db, people, stores, audit, keys, clock, hash, fresh }: Deps) {
  return {
    async listOrganizations () {
      const rows = await db('organizations as o')
        .select('o.id', 'o.name', 'o.created_at')
        .select(db('store_envs as s').count('*').whereRaw('?? = ??', ['s.org_id', 'o.id']).as('stores'))
        .orderBy([{ column: 'o.created_at', order: 'asc' }, { column: 'o.id', order: 'asc' }])
      return {
        organizations: rows.map((row) => ({
          id: row.id,
          name: row.name,
          stores: Number(row.stores),
          createdAt: new Date(Number(row.created_at)).toISOString()
        }))
      }
    },

    async listStores (orgId: string) {
      if (!await people.findOrganization(orgId)) throw new errors.NotFound('Organization')
      const list = await stores.listForOrg(orgId)
      return {
        stores: list.map((s) => ({ id: s.id, name: s.name, plan: s.plan, status: s.subscriptionStatus, origins: s.allowedOrigins }))
      }
    },

    async createKey (input: { org: string, name: string, role: Role, scopes: string[], expiresAt?: string }) {
      if (!(KEY_ROLES as readonly string[]).includes(input.role)) {
        throw new errors.InvalidRequest(`A key's role is ${KEY_ROLES.join(', ')}, not ${input.role}`)
      }
      if (!await people.findOrganization(input.org)) throw new errors.NotFound('Organization')
      const key = await keys.create({ type: 'cli', orgId: input.org, role: 'admin', scopes: [] }, {
        name: input.name,
        role: input.role,
        scopes: input.scopes,
        expiresAt: input.expiresAt
      }, null)
      return { apiKey: key }
    },

    /** A new random password for an owner; shown once, like the first run's. */
    async resetOwnerPassword (email: string) {
      const person = await people.findPersonByEmail(email)
      const owned = person ? (await people.organizationsOf(person.id)).filter((m) => m.role === 'owner') : []
      if (!person || owned.length === 0) throw new errors.NotFound(`Owner ${email}`)
      const password = generatePassword()
      await db.transaction(async (trx) => {
        await people.setPassword(person.id, await hash.hash(password), trx)
        // Whoever signed in with the old password is signed out.
        await trx('person_sessions').where({ person_id: person.id }).delete()
        for (const org of owned) {
          await audit.record({
            orgId: org.id,
            action: 'person.password_reset',
            actor: 'cli',
            subject: `person:${person.id}`,
            ip: null,
            details: {}
          }, trx)
        }
      })
      // Whatever an instance keeps about the person is read again on its next request (lib/freshness.ts).
      await fresh.bump([marker.person(person.id)])
      return { person: { id: person.id, email: person.email, password }, at: new Date(clock()).toISOString() }
    }
  }
}

export type OperatorService = ReturnType<typeof operatorService>
