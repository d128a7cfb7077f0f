import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import { roleRank, type Role } from '../../lib/permissions.js'
import type { AuditRepository } from '../audit/index.js'
import type { PeopleRepository, StoresRepository } from '../account/index.js'
import { actorOf, type Credential, type StoreEnv } from '../../types.js'
import type { GrantableRole, PartnerGrantRow, PartnerGrantsRepository } from './partners.repository.js'

interface Deps {
  db: Knex
  repo: PartnerGrantsRepository
  people: PeopleRepository
  stores: StoresRepository
  audit: AuditRepository
  clock: Clock
}

export function lesserRole (a: Role, b: Role): Role {
  return roleRank(a) <= roleRank(b) ? a : b
}

function presentGrant (row: PartnerGrantRow & { org_name: string }) {
  return {
    partnerOrgId: row.partner_org_id,
    partnerOrgName: row.org_name,
    role: row.role,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

/**
 * Partner (agency) access (docs/contract/tenancy-and-roles.md#partner-access): a client organization's owner grants a
 * partner organization a role of at most admin; the partner's people then act on the client's stores with the lesser of
 * their own role and the grant (pipeline/resolve-store.ts asks `actingFor` on each such request, so a revocation holds
 * from the next one).
 */
export function partnersService ({ db, repo, people, stores, audit, clock }: Deps) {
  return {
    /** Grants a partner a role, or changes the role it has; `created` says which. */
    async grant (actor: Credential, input: { partnerOrgId: string, role: GrantableRole }, ip: string | null) {
      // A partner acting for this client never hands the client's access on (the pipeline's access step refuses it first).
      if (actor.partnerOrgId) throw new errors.CredentialNotAllowed()
      if (input.partnerOrgId === actor.orgId) throw new errors.InvalidRequest('partnerOrgId: an organization cannot be its own partner')
      const partner = await people.findOrganization(input.partnerOrgId)
      if (!partner) throw new errors.NotFound('Organization')
      const now = clock()
      return db.transaction(async (trx) => {
        const before = await repo.find(actor.orgId, partner.id, trx)
        const row: PartnerGrantRow = before
          ? { ...before, role: input.role, updated_at: now }
          : {
              id: newId('pgr'),
              client_org_id: actor.orgId,
              partner_org_id: partner.id,
              role: input.role,
              created_by: actorOf(actor),
              created_at: now,
              updated_at: now
            }
        if (before && before.role === input.role) return { grant: presentGrant({ ...before, org_name: partner.name }), created: false }
        if (before) await repo.setRole(before.id, input.role, now, trx)
        else await repo.insert(row, trx)
        const action = before ? 'partner.role_changed' : 'partner.granted'
        const details = { partnerOrgId: partner.id, role: input.role, ...(before ? { from: before.role } : {}) }
        await audit.record({ orgId: actor.orgId, action, actor: actorOf(actor), subject: `org:${partner.id}`, ip, details }, trx)
        await audit.record({
          orgId: partner.id,
          action: before ? 'partner.client_role_changed' : 'partner.client_granted',
          actor: actorOf(actor),
          subject: `org:${actor.orgId}`,
          ip,
          details: { clientOrgId: actor.orgId, role: input.role }
        }, trx)
        return { grant: presentGrant({ ...row, org_name: partner.name }), created: !before }
      })
    },

    async list (clientOrgId: string) {
      return { data: (await repo.ofClient(clientOrgId)).map(presentGrant) }
    },

    /** Revocation: deleted in one step, so the partner's next request on a client store finds no grant. */
    async revoke (actor: Credential, partnerOrgId: string, ip: string | null) {
      if (actor.partnerOrgId) throw new errors.CredentialNotAllowed()
      await db.transaction(async (trx) => {
        if (!await repo.remove(actor.orgId, partnerOrgId, trx)) throw new errors.NotFound('Partner grant')
        await audit.record({
          orgId: actor.orgId,
          action: 'partner.revoked',
          actor: actorOf(actor),
          subject: `org:${partnerOrgId}`,
          ip,
          details: { partnerOrgId }
        }, trx)
        await audit.record({
          orgId: partnerOrgId,
          action: 'partner.client_revoked',
          actor: actorOf(actor),
          subject: `org:${actor.orgId}`,
          ip,
          details: { clientOrgId: actor.orgId }
        }, trx)
      })
    },

    /** The clients a partner works for, with the role each granted and their stores. */
    async clients (partnerOrgId: string) {
      const grants = await repo.ofPartner(partnerOrgId)
      const data = await Promise.all(grants.map(async (grant) => ({
        orgId: grant.client_org_id,
        name: grant.org_name,
        role: grant.role,
        grantedAt: iso(grant.created_at)!,
        updatedAt: iso(grant.updated_at)!,
        stores: (await stores.listForOrg(grant.client_org_id)).map((store) => ({ id: store.id, name: store.name }))
      })))
      return { data }
    },

    /**
     * The credential a partner's person acts with on a client's store: the client's organization, the lesser of the
     * credential's role and the grant's, and the partner noted. Null when the client granted nothing (or revoked).
     * API keys never act for clients: a key outlives people and would carry an agency's access nobody watches.
     */
    async actingFor (credential: Credential, store: StoreEnv): Promise<Credential | null> {
      if (credential.type === 'api_key' || !credential.personId || credential.partnerOrgId) return null
      const granted = await repo.roleOf(store.orgId, credential.orgId)
      if (!granted) return null
      return { ...credential, orgId: store.orgId, role: lesserRole(credential.role, granted), partnerOrgId: credential.orgId }
    },

    /** Every store of every client of the partner, for the store switcher and the OAuth consent screen. */
    async clientStores (partnerOrgId: string) {
      const grants = await repo.ofPartner(partnerOrgId)
      const lists = await Promise.all(grants.map(async (grant) => (await stores.listForOrg(grant.client_org_id))
        .map((store) => ({ store, client: { id: grant.client_org_id, name: grant.org_name }, role: grant.role }))))
      return lists.flat()
    }
  }
}
export type PartnersService = ReturnType<typeof partnersService>
