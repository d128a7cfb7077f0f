import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso } from '../../lib/clock.js'
import { marker, type Freshness } from '../../lib/freshness.js'
import { actorOf, type Credential } from '../../types.js'
import type { AuditRepository } from '../audit/index.js'
import type { PeopleRepository } from '../account/index.js'
import type { OrgsRepository } from './orgs.repository.js'

interface Deps { db: Knex, repo: OrgsRepository, people: PeopleRepository, audit: AuditRepository, fresh: Freshness }

/**
 * The caller's organization (docs/contract/resources.md#organization): view, rename and ownership transfer, by its
 * owner.
 */
export function orgsService ({ db, repo, people, audit, fresh }: Deps) {
  async function current (orgId: string) {
    const org = await repo.find(orgId)
    if (!org) throw new errors.NotFound('Organization')
    return { id: org.id, name: org.name, owners: await repo.owners(orgId), createdAt: iso(org.createdAt)! }
  }

  return {
    current,

    async rename (actor: Credential, name: string, ip: string | null) {
      const trimmed = name.trim()
      if (!trimmed) throw new errors.InvalidRequest('name must not be blank')
      await db.transaction(async (trx) => {
        const before = await repo.find(actor.orgId, trx)
        await repo.rename(actor.orgId, trimmed, trx)
        await audit.record({
          orgId: actor.orgId,
          action: 'org.renamed',
          actor: actorOf(actor),
          subject: `org:${actor.orgId}`,
          ip,
          details: { from: before?.name ?? null, to: trimmed }
        }, trx)
      })
      return current(actor.orgId)
    },

    /**
     * The owner hands ownership to a member who is already an admin (one step up, chosen by them, never a
     * stranger), and becomes an admin: an organization has exactly as many owners after as before.
     */
    async transferOwnership (actor: Credential, personId: string, ip: string | null) {
      const from = actor.personId
      if (!from) throw new errors.RoleForbidden('orgs: only a person who owns the organization can transfer it')
      if (personId === from) throw new errors.InvalidRequest('You already own the organization: name another member')
      await db.transaction(async (trx) => {
        // In turn with every other change to the memberships: a demotion of the recipient decided on what it read
        // before this transfer committed would otherwise demote the new owner (account.service.ts).
        await people.lockOrganization(actor.orgId, trx)
        const roles = await repo.lockedRoles(actor.orgId, [from, personId], trx)
        if (roles.get(from) !== 'owner') throw new errors.RoleForbidden('orgs: only an owner can transfer ownership')
        const target = roles.get(personId)
        if (!target) throw new errors.NotFound('Member')
        if (target !== 'admin') {
          throw new errors.Conflict(
            `Ownership goes to an admin of the organization; this member is ${target === 'owner' ? 'already an owner' : `an ${target}`}`
          )
        }
        await people.setRole(actor.orgId, personId, 'owner', trx)
        await people.setRole(actor.orgId, from, 'admin', trx)
        await audit.record({
          orgId: actor.orgId,
          action: 'org.ownership_transferred',
          actor: actorOf(actor),
          subject: `person:${personId}`,
          ip,
          details: { from: `person:${from}`, to: `person:${personId}` }
        }, trx)
      })
      // Both people's credentials are read again on their next request: the old owner's now carry admin at most.
      await fresh.bump([marker.person(from), marker.person(personId)])
      return current(actor.orgId)
    }
  }
}
export type OrgsService = ReturnType<typeof orgsService>
