import type { Knex } from 'knex'
import type Provider from 'oidc-provider'
import type { Clock } from '../src/lib/clock.js'
import { isValidScope, PERSON_ROLES, roleRank, ROLES, type Role } from '../src/lib/permissions.js'
import type { PeopleRepository, StoresRepository } from '../src/modules/account/index.js'
import type { AuditRepository } from '../src/modules/audit/index.js'
import type { GrantsRepository, OauthClients } from '../src/modules/connectors/index.js'

export interface ConsentChoice { org: string, stores: string[], role: string }
export type ClientRegistrar = NonNullable<Awaited<ReturnType<OauthClients['registrar']>>>

/** A choice the consent screen refuses: 400 for a choice to correct, 403 for a client the person may not authorize. */
export class ConsentError extends Error {
  constructor (message: string, readonly status = 400) { super(message) }
}

/** The stores of the clients that granted an organization partner access (modules/partners). */
export type ClientStores = (partnerOrgId: string) => Promise<Array<{ store: { id: string, name: string }, client: { name: string } }>>

interface Deps {
  db: Knex
  provider: Provider
  people: PeopleRepository
  stores: StoresRepository
  grants: GrantsRepository
  clients: OauthClients
  audit: AuditRepository
  clock: Clock
  audience: string
  clientStores?: ClientStores
}

/** An organization's client serves only that organization; an operator-registered one (no orgId) serves all. */
export function clientServes (client: Pick<ClientRegistrar, 'orgId'>, orgId: string): boolean {
  return client.orgId == null || client.orgId === orgId
}

/** A grant's role: never above the person's own and never owner (owner authority is not delegated). */
export function grantableRoles (personRole: Role): Role[] {
  return ROLES.filter((r) => r !== 'owner' && roleRank(r) <= roleRank(personRole)).reverse()
}

/**
 * The consent step (docs/contract/oauth.md#consent): the person picks organization, stores and role; we record it on
 * the grant.
 */
export function consentService (deps: Deps) {
  /**
   * The organization's own stores, then those of its partner clients
   * (docs/contract/tenancy-and-roles.md#partner-access): a connection made for an agency may reach them, and every
   * request re-checks the client's grant (pipeline/resolve-store.ts).
   */
  async function storesOf (orgId: string): Promise<Array<{ id: string, name: string }>> {
    const own = (await deps.stores.listForOrg(orgId)).map((s) => ({ id: s.id, name: s.name }))
    const clients = deps.clientStores ? await deps.clientStores(orgId) : []
    return [...own, ...clients.map(({ store, client }) => ({ id: store.id, name: `${store.name} (client: ${client.name})` }))]
  }

  return {
    /** The organizations the person may connect this client to, with their stores, and the grantable roles. */
    async options (personId: string, client: Pick<ClientRegistrar, 'orgId'>) {
      const orgs = (await deps.people.organizationsOf(personId)).filter((org) => clientServes(client, org.id))
      const organizations = await Promise.all(orgs.map(async (org) => ({
        ...org,
        stores: await storesOf(org.id)
      })))
      const highest = orgs.reduce<Role>((best, o) => roleRank(o.role) > roleRank(best) ? o.role : best, 'viewer')
      return { organizations, roles: grantableRoles(highest) }
    },

    /** Validates the choice, saves the provider grant and our record of it in one go; returns the grant id. */
    async grant (
      input: { personId: string, clientId: string, oidcScope: string[], apiScopes: string[], choice: ConsentChoice, ip: string | null }
    ) {
      const { choice } = input
      const client = await deps.clients.registrar(input.clientId)
      if (!client) throw new ConsentError('This application is not registered.')
      if (!clientServes(client, choice.org)) throw new ConsentError(`${client.name} was registered by ${client.orgName ?? 'another organization'}; only its members can connect it, to that organization.`, 403)
      const memberRole = await deps.people.membershipRole(choice.org, input.personId)
      if (!memberRole || !(PERSON_ROLES as readonly string[]).includes(memberRole)) {
        throw new ConsentError('Choose an organization you belong to.')
      }
      if (!grantableRoles(memberRole).includes(choice.role as Role)) throw new ConsentError('Choose a role that is not above your own.')
      const storeIds = [...new Set(choice.stores)]
      if (storeIds.length === 0) throw new ConsentError('Choose at least one store environment.')
      const orgStores = new Set((await storesOf(choice.org)).map((s) => s.id))
      if (storeIds.some((id) => !orgStores.has(id))) throw new ConsentError('Choose store environments of the chosen organization.')
      const apiScopes = input.apiScopes.filter(isValidScope)

      const grant = new deps.provider.Grant({ accountId: input.personId, clientId: input.clientId })
      if (input.oidcScope.length) grant.addOIDCScope(input.oidcScope.join(' '))
      grant.addResourceScope(deps.audience, apiScopes.join(' '))
      const grantId = await grant.save()
      const now = deps.clock()
      await deps.db.transaction(async (trx) => {
        await deps.grants.insert({
          id: grantId,
          orgId: choice.org,
          personId: input.personId,
          clientId: input.clientId,
          role: choice.role as Role,
          scopes: apiScopes,
          storeIds,
          createdAt: now
        }, trx)
        await deps.audit.record({
          orgId: choice.org,
          action: 'oauth.connection_created',
          actor: `person:${input.personId}`,
          subject: `oauth:${grantId}`,
          ip: input.ip,
          details: { clientId: input.clientId, role: choice.role, scopes: apiScopes, storeIds }
        }, trx)
      })
      return grantId
    }
  }
}
export type ConsentService = ReturnType<typeof consentService>
