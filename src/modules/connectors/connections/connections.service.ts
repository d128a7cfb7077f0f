import type { Knex } from 'knex'
import { errors } from '../../../errors.js'
import { iso, type Clock } from '../../../lib/clock.js'
import { roleRank } from '../../../lib/permissions.js'
import { sha256 } from '../../../lib/secrets.js'
import { toPage, envelope, type PageQuery } from '../../../lib/pagination.js'
import type { AuditRepository } from '../../audit/index.js'
import { actorOf, type Credential } from '../../../types.js'
import type { GrantsRepository } from './grants.repository.js'
import type { OauthClients } from './oauth-clients.repository.js'
import { marker, type Freshness } from '../../../lib/freshness.js'
import type { SubscriptionsRepository } from '../../delivery/index.js'

interface Deps {
  db: Knex
  grants: GrantsRepository
  clients: OauthClients
  audit: AuditRepository
  clock: Clock
  fresh: Freshness
  subscriptions: SubscriptionsRepository
}

/** Removes the provider's grant and every code and token issued under it. */
export async function destroyGrantModels (db: Knex, grantId: string): Promise<void> {
  await db('oidc_models').where({ grant_id: grantId }).orWhere({ model: 'Grant', id_hash: sha256(grantId) }).delete()
}

/**
 * Revoking another person's connection is organization administration (admin or owner); whoever may write connectors
 * may revoke their own. Keys belong to no person, so an editor key revokes none.
 */
function mayRevoke (actor: Pick<Credential, 'role' | 'personId'>, connectionPersonId: string): boolean {
  return roleRank(actor.role) >= roleRank('admin') || (actor.personId !== null && actor.personId === connectionPersonId)
}

/** Connections (grants) of an organization and its OAuth clients: docs/contract/oauth.md#grants. */
export function connectionsService ({ db, grants, clients, audit, clock, fresh, subscriptions }: Deps) {
  /**
   * The REST hooks a connection made stop with it (docs/contract/tenancy-and-roles.md#org-level-authority: a revoked
   * connection leaves nothing behind).
   */
  const endHooks = (orgId: string, grantIds: string[], trx: Knex) =>
    subscriptions.endHooksOf(orgId, grantIds.map((id) => `oauth:${id}`), 'Its connection was revoked', clock(), trx)

  return {
    mayRevoke,

    async list (orgId: string, query: PageQuery) {
      const page = toPage(query)
      const { total, rows } = await grants.list(orgId, page)
      return envelope(rows.map((g) => ({
        id: g.id,
        client: { id: g.clientId, name: g.clientName },
        person: { id: g.personId, email: g.personEmail },
        role: g.role,
        scopes: g.scopes,
        storeIds: g.storeIds,
        createdAt: iso(g.createdAt)!,
        lastUsedAt: iso(g.lastUsedAt)
      })), total, page)
    },

    async revoke (actor: Credential, id: string, ip: string | null) {
      const grant = await grants.find(id)
      if (!grant || grant.orgId !== actor.orgId) throw new errors.NotFound('Connection')
      if (!mayRevoke(actor, grant.personId)) throw new errors.RoleForbidden('another person\'s connection')
      await db.transaction(async (trx) => {
        if (await grants.revoke(id, clock(), actor.orgId, trx)) {
          await audit.record(
            { orgId: actor.orgId, action: 'oauth.connection_revoked', actor: actorOf(actor), subject: `oauth:${id}`, ip },
            trx
          )
        }
        await endHooks(actor.orgId, [id], trx)
      })
      await destroyGrantModels(db, id)
      await fresh.bump([marker.grant(id)])
    },

    /**
     * A teammate removed from the organization loses every connection they made for it, for good: our records
     * are revoked (re-adding the person revives nothing) and the provider's grants, codes and refresh tokens are
     * deleted. Runs inside the removal's transaction. docs/contract/oauth.md#grants.
     */
    async endPersonConnections (input: { orgId: string, personId: string, actor: string, ip: string | null }, trx: Knex) {
      const ids = await grants.revokeAllOfPerson(input.orgId, input.personId, clock(), trx)
      await endHooks(input.orgId, ids, trx)
      for (const id of ids) {
        await audit.record({
          orgId: input.orgId,
          action: 'oauth.connection_revoked',
          actor: input.actor,
          subject: `oauth:${id}`,
          ip: input.ip,
          details: { reason: 'member_removed', personId: input.personId }
        }, trx)
        await destroyGrantModels(trx, id)
      }
      // Inside the caller's transaction: the caller bumps the person's marker after its commit, which covers these.
    },

    /** The provider revoked a grant itself (refresh-token reuse after the grace period, or RFC 7009 revocation). */
    async revokedByProvider (id: string) {
      const grant = await grants.find(id)
      if (!grant) return
      await db.transaction(async (trx) => {
        if (await grants.revoke(id, clock(), grant.orgId, trx)) {
          await audit.record(
            { orgId: grant.orgId, action: 'oauth.connection_revoked', actor: 'system', subject: `oauth:${id}`, ip: null },
            trx
          )
        }
        await endHooks(grant.orgId, [id], trx)
      })
      await fresh.bump([marker.grant(id)])
    },

    listClients: (orgId: string, query: PageQuery) => clients.list(orgId, query),

    async createClient (actor: Credential, input: { name: string, redirectUris: string[], public?: boolean }, ip: string | null) {
      const created = await clients.create({ ...input, orgId: actor.orgId, createdBy: actorOf(actor) })
      await audit.record({
        orgId: actor.orgId,
        action: 'oauth_client.created',
        actor: actorOf(actor),
        subject: `oauth_client:${created.id}`,
        ip,
        details: { name: input.name, redirectUris: created.redirectUris }
      })
      return created
    }
  }
}
export type ConnectionsService = ReturnType<typeof connectionsService>
