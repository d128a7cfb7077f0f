import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { PERSON_ROLES, roleRank, type Role } from '../../lib/permissions.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import { actorOf, type Credential } from '../../types.js'
import type { AuditRepository } from '../audit/index.js'
import type { PeopleRepository } from './people.repository.js'
import { replaceStoreOrigins } from './store-origins.js'
import { marker, type Freshness } from '../../lib/freshness.js'
import type { StoreEnv, StoresRepository } from './stores.repository.js'

/** Ends the OAuth connections a removed member made for the organization, inside the removal's transaction. */
export type EndPersonConnections = (
  input: { orgId: string, personId: string, actor: string, ip: string | null },
  trx: Knex
) => Promise<void>

interface Deps {
  db: Knex
  people: PeopleRepository
  stores: StoresRepository
  audit: AuditRepository
  clock: Clock
  fresh: Freshness
  endPersonConnections: EndPersonConnections
  /** The stores of the clients that granted an organization partner access (modules/partners). */
  clientStores?: (partnerOrgId: string) => Promise<StoreEnv[]>
}

export function presentStore (store: StoreEnv) {
  return {
    id: store.id,
    name: store.name,
    plan: store.plan,
    subscription: { status: store.subscriptionStatus, currentPeriodEnd: iso(store.currentPeriodEnd) },
    allowedOrigins: store.allowedOrigins,
    createdAt: iso(store.createdAt)!
  }
}

export function accountService ({ db, people, stores, audit, clock, fresh, endPersonConnections, clientStores }: Deps) {
  /**
   * A store named in the path gets the checks the pipeline gives x-store-env-id: in the credential's organization and
   * grant (else 404 store_env_not_found, so other tenants' ids are not confirmed), and not lapsed.
   */
  async function storeInReach (credential: Credential, storeId: string): Promise<StoreEnv> {
    const store = await stores.find(storeId)
    const inGrant = !credential.storeIds || credential.storeIds.includes(storeId)
    if (!store || store.orgId !== credential.orgId || !inGrant) throw new errors.StoreEnvNotFound()
    if (store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
    return store
  }

  return {
    async stores (credential: Credential, query: PageQuery) {
      const own = await stores.listForOrg(credential.orgId, credential.storeIds)
      // A person's credential also reaches its partner clients' stores
      // (docs/contract/tenancy-and-roles.md#partner-access); keys never do.
      const reachable = (id: string) => !credential.storeIds || credential.storeIds.includes(id)
      const partnered = clientStores && credential.personId && credential.type !== 'api_key' && !credential.partnerOrgId
        ? (await clientStores(credential.orgId)).filter((store) => reachable(store.id))
        : []
      const all = [...own, ...partnered]
      const page = toPage(query)
      return envelope(all.slice(page.offset, page.offset + page.limit).map(presentStore), all.length, page)
    },

    async storeOrigins (credential: Credential, storeId: string) {
      return { origins: (await storeInReach(credential, storeId)).allowedOrigins }
    },

    /** Owner and admin only (the route's minRole; the admin pages check the same). */
    async setStoreOrigins (credential: Credential, storeId: string, origins: readonly string[], ip: string | null) {
      const store = await storeInReach(credential, storeId)
      return { origins: await replaceStoreOrigins({ db, stores, audit, fresh }, store, origins, actorOf(credential), ip) }
    },

    async members (orgId: string, query: PageQuery) {
      const page = toPage(query)
      const { total, members } = await people.listMembers(orgId, page)
      return envelope(
        members.map((m) => ({ id: m.personId, email: m.email, name: m.name, role: m.role, joinedAt: iso(m.joinedAt)! })),
        total,
        page
      )
    },

    /**
     * Removal is immediate: every credential tied to the person is re-checked on its next request, and the
     * person's connections for the organization end for good (re-adding the person revives none of them).
     */
    async removeMember (actor: Credential, personId: string, ip: string | null) {
      await db.transaction(async (trx) => {
        // Two owners removing each other at once: the second finds the first gone and keeps the last owner.
        await people.lockOrganization(actor.orgId, trx)
        const role = await people.membershipRole(actor.orgId, personId, trx)
        if (!role) throw new errors.NotFound('Member')
        if (roleRank(role) > roleRank(actor.role)) throw new errors.RoleForbidden('a member with a higher role')
        if (role === 'owner' && await people.countOwners(actor.orgId, trx) <= 1) {
          throw new errors.Conflict('The last owner of an organization cannot be removed')
        }
        await people.removeMembership(actor.orgId, personId, trx)
        await audit.record({
          orgId: actor.orgId,
          action: 'member.removed',
          actor: actorOf(actor),
          subject: `person:${personId}`,
          ip,
          details: { role }
        }, trx)
        await endPersonConnections({ orgId: actor.orgId, personId, actor: actorOf(actor), ip }, trx)
      })
      // After the commit: every instance reads the person's credentials again on their next request.
      await fresh.bump([marker.person(personId)])
    },

    /** Up to the actor's own role, never for someone above it, and an organization always keeps an owner. */
    async changeRole (actor: Credential, personId: string, role: Role, ip: string | null) {
      if (!(PERSON_ROLES as readonly string[]).includes(role)) throw new errors.InvalidRequest('A person\'s role is owner, admin or editor')
      await db.transaction(async (trx) => {
        await people.lockOrganization(actor.orgId, trx)
        const current = await people.membershipRole(actor.orgId, personId, trx)
        if (!current) throw new errors.NotFound('Member')
        if (roleRank(current) > roleRank(actor.role) || roleRank(role) > roleRank(actor.role)) {
          throw new errors.RoleForbidden('a role above your own')
        }
        if (current === role) return
        if (current === 'owner' && await people.countOwners(actor.orgId, trx) <= 1) {
          throw new errors.Conflict('The last owner of an organization cannot be given another role')
        }
        await people.setRole(actor.orgId, personId, role, trx)
        await audit.record({
          orgId: actor.orgId,
          action: 'member.role_changed',
          actor: actorOf(actor),
          subject: `person:${personId}`,
          ip,
          details: { from: current, to: role }
        }, trx)
      })
      await fresh.bump([marker.person(personId)])
    },

    auditLog (orgId: string, query: PageQuery & { action?: string }) {
      const page = toPage(query)
      return audit.list(orgId, { action: query.action, ...page }).then(({ total, entries }) => envelope(entries, total, page))
    },

    /** The actions the organization's audit log holds. */
    auditActions: (orgId: string) => audit.actions(orgId),

    /** Names for the actors and subjects of the organization's audit entries, resolved within the organization. */
    auditNames: (orgId: string, refs: Iterable<string>) => audit.names(orgId, refs),

    now: () => clock()
  }
}
export type AccountService = ReturnType<typeof accountService>
