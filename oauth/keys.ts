import type { Knex } from 'knex'
import { exportJWK, generateKeyPair, type JWK } from 'jose'
import { base62 } from '../src/lib/ids.js'
import { decrypt, encrypt } from '../src/lib/secrets.js'

export const SIGNING_ALG = 'RS256'
/** A retired key stays published (and verifiable) this long: more than any token it signed can live. */
export const RETIRED_KEY_KEEP_MS = 24 * 3600_000

interface KeyRow { kid: string, sealed_jwk: string, created_at: number, retired_at: number | null }

async function newKey (db: Knex, secretKey: string, now: number): Promise<void> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true, modulusLength: 2048 })
  const jwk = { ...(await exportJWK(privateKey)), kid: base62(16), alg: SIGNING_ALG, use: 'sig' }
  await db('oidc_keys').insert({ kid: jwk.kid, sealed_jwk: encrypt(JSON.stringify(jwk), secretKey), created_at: now, retired_at: null })
}

/**
 * The provider's signing keys, newest active key first (the provider signs with the first key of an algorithm).
 * Generated on first start; kept encrypted with SECRET_KEY. Two instances starting together may each make one:
 * both are published, so tokens from either verify everywhere.
 */
export async function loadSigningKeys (db: Knex, secretKey: string, now: number): Promise<JWK[]> {
  let rows = await db<KeyRow>('oidc_keys').orderBy('created_at', 'desc').orderBy('kid')
  if (!rows.some((row) => row.retired_at == null)) {
    await newKey(db, secretKey, now)
    rows = await db<KeyRow>('oidc_keys').orderBy('created_at', 'desc').orderBy('kid')
  }
  const live = rows.filter((row) => row.retired_at == null || Number(row.retired_at) + RETIRED_KEY_KEEP_MS > now)
  live.sort((a, b) => Number(a.retired_at != null) - Number(b.retired_at != null))
  return live.map((row) => JSON.parse(decrypt(row.sealed_jwk, secretKey)) as JWK)
}

/** Key rotation: a new key signs from the next start on; the old ones stay verifiable until their tokens expire. */
export async function rotateSigningKeys (db: Knex, secretKey: string, now: number): Promise<{ kid: string, retired: string[] }> {
  // One transaction: an instance starting mid-rotation must never see no active key, or it would make its own.
  return db.transaction(async (trx) => {
    const active = await trx<KeyRow>('oidc_keys').whereNull('retired_at').pluck('kid')
    await trx('oidc_keys').whereNull('retired_at').update({ retired_at: now })
    await newKey(trx, secretKey, now)
    await trx('oidc_keys').whereNotNull('retired_at').where('retired_at', '<=', now - RETIRED_KEY_KEEP_MS).delete()
    const [row] = await trx<KeyRow>('oidc_keys').whereNull('retired_at').orderBy('created_at', 'desc').limit(1)
    return { kid: row.kid, retired: active }
  })
}

/** The public halves, for verifying access tokens in the credential resolver. */
export function publicJwks (keys: JWK[]): JWK[] {
  return keys.map(({ kty, n, e, kid, alg, use, crv, x, y }) => ({ kty, n, e, kid, alg, use, crv, x, y }))
}
