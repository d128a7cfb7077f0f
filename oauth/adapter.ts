import type { Knex } from 'knex'
import { errors as oidcErrors, type Adapter, type AdapterPayload } from 'oidc-provider'
import { sha256 } from '../src/lib/secrets.js'
import type { Clock } from '../src/lib/clock.js'
import { marker, type Freshness } from '../src/lib/freshness.js'
import type { RefreshTokenRow } from '../src/modules/connectors/index.js'

/**
 * oidc-provider's Adapter contract on knex (MySQL and SQLite): one table keyed by model name + id.
 * Ids are stored as SHA-256 because an opaque token's value is its id; the payload drops `jti` for the same reason.
 * `Client` is served from oauth_clients (see clients.repository.ts), never from this table; `Grant` and
 * `RefreshToken` rows are read through `findGrant` and `findRefreshToken`, which may read more in the same query
 * (provider.ts).
 */
export interface ModelHooks {
  findClient: (id: string) => Promise<AdapterPayload | undefined>
  findGrant: (id: string) => Promise<string | undefined>
  findRefreshToken: (idHash: string) => Promise<RefreshTokenRow | undefined>
  /** Records a grant the provider's models no longer hold as revoked (our connection, its audit entry). */
  onGrantRevoked: (grantId: string) => void
}

export function knexAdapterFactory (db: Knex, clock: Clock, hooks: ModelHooks, fresh: Freshness) {
  return class KnexAdapter implements Adapter {
    constructor (private readonly model: string) {}

    private key (id: string) {
      return { model: this.model, id_hash: sha256(id) }
    }

    async upsert (id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const { jti: _jti, ...rest } = payload
      const row = {
        ...this.key(id),
        payload: JSON.stringify(rest),
        // A Grant row carries its own id, so a refresh token's read can join its grant (grants.repository.ts).
        grant_id: payload.grantId ?? (this.model === 'Grant' ? id : null),
        uid_hash: payload.uid ? sha256(payload.uid) : null,
        user_code_hash: payload.userCode ? sha256(payload.userCode) : null,
        consumed_at: null,
        expires_at: expiresIn ? clock() + expiresIn * 1000 : null
      }
      await db('oidc_models').insert(row).onConflict(['model', 'id_hash']).merge()
    }

    private async read (where: Record<string, string>, id?: string): Promise<AdapterPayload | undefined> {
      const row = this.model === 'RefreshToken' && where.id_hash
        ? await hooks.findRefreshToken(where.id_hash)
        : await db('oidc_models').where({ model: this.model, ...where }).first('payload', 'consumed_at as consumedAt')
      if (!row) return undefined
      const payload = JSON.parse(row.payload) as AdapterPayload
      if (id !== undefined) payload.jti = id
      if (row.consumedAt != null) payload.consumed = Math.floor(Number(row.consumedAt) / 1000)
      return payload
    }

    async find (id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return hooks.findClient(id)
      if (this.model === 'Grant') {
        const payload = await hooks.findGrant(id)
        return payload === undefined ? undefined : { ...JSON.parse(payload) as AdapterPayload, jti: id }
      }
      // The provider checks `exp` itself; rows past their expiry are removed by removeExpiredModels.
      return this.read({ id_hash: sha256(id) }, id)
    }

    async findByUid (uid: string): Promise<AdapterPayload | undefined> {
      const row = await db('oidc_models').where({ model: this.model, uid_hash: sha256(uid) }).first('payload')
      if (!row) return undefined
      // Found by uid without knowing the id, so `jti` cannot be restored here (only its hash is stored);
      // the provider looks sessions up by uid only in back-channel logout, which is not enabled.
      return JSON.parse(row.payload) as AdapterPayload
    }

    async findByUserCode (userCode: string): Promise<AdapterPayload | undefined> {
      return this.read({ user_code_hash: sha256(userCode) })
    }

    /**
     * A rotated refresh token is consumed by its rotation record, which the token endpoint writes once the response
     * is known (provider.ts) and read() joins: one write less per grant, a second request rotating the same token
     * loses on the record's key, and a rotation that fails before answering leaves the old token usable.
     */
    async consume (id: string): Promise<void> {
      if (this.model === 'RefreshToken') return
      const consumed = await db('oidc_models').where(this.key(id)).whereNull('consumed_at').update({ consumed_at: clock() })
      if (consumed === 0 && this.model === 'AuthorizationCode') await this.refuseRedeemedCode(id)
    }

    /**
     * A code another request redeemed since this one read it: refused as the provider refuses a replayed code, and
     * everything issued under its grant is revoked (RFC 6749 section 4.1.2), for one code must not mint two sets.
     */
    private async refuseRedeemedCode (id: string): Promise<never> {
      const row = await db('oidc_models').where(this.key(id)).first('grant_id')
      const grantId = row?.grant_id as string | null | undefined
      if (grantId) {
        await db('oidc_models').where({ grant_id: grantId }).orWhere({ model: 'Grant', id_hash: sha256(grantId) }).delete()
        await fresh.bump([marker.grant(grantId)])
        hooks.onGrantRevoked(grantId)
      }
      throw new oidcErrors.InvalidGrant('authorization code already consumed')
    }

    // A grant that goes (revocation, refresh-token reuse) ends its access tokens on every instance's next request:
    // the API trusts a cached grant only while its marker is unchanged (lib/freshness.ts).
    async destroy (id: string): Promise<void> {
      await db('oidc_models').where(this.key(id)).delete()
      if (this.model === 'Grant') await fresh.bump([marker.grant(id)])
    }

    async revokeByGrantId (grantId: string): Promise<void> {
      await db('oidc_models').where({ model: this.model, grant_id: grantId }).delete()
      await fresh.bump([marker.grant(grantId)])
    }
  }
}

/** Rotation records (and the sealed responses of the grace window) are kept a day. */
const ROTATION_RECORD_KEEP_MS = 86_400_000

/**
 * Removes provider rows past their expiry (called periodically and on demand). A rotation record that goes hands
 * its consumption to the token's own row first, in one transaction, so an old refresh token never comes back.
 */
export async function removeExpiredModels (db: Knex, now: number): Promise<number> {
  const models = await db('oidc_models').whereNotNull('expires_at').where('expires_at', '<=', now).delete()
  const cutoff = now - ROTATION_RECORD_KEEP_MS
  await db.transaction(async (trx) => {
    const aged = trx('oauth_refresh_rotations').where('rotated_at', '<=', cutoff)
    await trx('oidc_models').where('model', 'RefreshToken').whereIn('id_hash', aged.clone().select('old_token_hash'))
      .update({ consumed_at: trx.raw('(select r.rotated_at from oauth_refresh_rotations r where r.old_token_hash = oidc_models.id_hash)') })
    await aged.delete()
  })
  return models
}
