import type { Knex } from 'knex'
import { exportJWK, generateKeyPair, type JWK } from 'jose'
import { base62 } from '../src/lib/ids.js'
import { decrypt, encrypt } from '../src/lib/secrets.js'

/**
 * Access tokens are signed on every grant and verified on every API request they carry: ES256 signs about three times
 * faster than RS256 with a 2048-bit key (a refresh grant's largest single cost), and JWKS consumers accept it.
 */
export const ACCESS_TOKEN_ALG = 'ES256'
/** ID tokens keep OpenID Connect's default, which every client accepts without registering another algorithm. */
export const ID_TOKEN_ALG = 'RS256'
/** What an access token may be signed with: RS256 signed them before ES256 did, and such a token lives an hour. */
export const ACCESS_TOKEN_ALGS = [ACCESS_TOKEN_ALG, ID_TOKEN_ALG]
const SIGNING_ALGS = [ACCESS_TOKEN_ALG, ID_TOKEN_ALG]
/** A retired key stays published (and verifiable) this long: more than any token it signed can live. */
export const RETIRED_KEY_KEEP_MS = 24 * 3600_000

interface KeyRow { kid: string, sealed_jwk: string, created_at: number, retired_at: number | null }
interface Key { row: KeyRow, jwk: JWK }

async function newKey (db: Knex, secretKey: string, now: number, alg: string): Promise<string> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg.startsWith('RS') ? { modulusLength: 2048 } : {}) })
  const jwk = { ...(await exportJWK(privateKey)), kid: base62(16), alg, use: 'sig' }
  await db('oidc_keys').insert({ kid: jwk.kid, sealed_jwk: encrypt(JSON.stringify(jwk), secretKey), created_at: now, retired_at: null })
  return jwk.kid
}

async function readKeys (db: Knex, secretKey: string): Promise<Key[]> {
  const rows = await db<KeyRow>('oidc_keys').orderBy('created_at', 'desc').orderBy('kid')
  return rows.map((row) => ({ row, jwk: JSON.parse(decrypt(row.sealed_jwk, secretKey)) as JWK }))
}

/**
 * The provider's signing keys: an active key for each algorithm, newest first and the access tokens' algorithm's
 * first (the provider signs with the first key of an algorithm), then retired ones still within their keep.
 * Generated on first start (and an algorithm's key added when a version starts using it); kept encrypted with
 * SECRET_KEY. Two instances starting together may each make one: both are published, so tokens from either verify
 * everywhere.
 */
export async function loadSigningKeys (db: Knex, secretKey: string, now: number): Promise<JWK[]> {
  let keys = await readKeys(db, secretKey)
  const missing = SIGNING_ALGS.filter((alg) => !keys.some(({ row, jwk }) => row.retired_at == null && jwk.alg === alg))
  if (missing.length > 0) {
    for (const alg of missing) await newKey(db, secretKey, now, alg)
    keys = await readKeys(db, secretKey)
  }
  const rank = ({ row, jwk }: Key) => (row.retired_at == null ? 0 : 2) + (jwk.alg === ACCESS_TOKEN_ALG ? 0 : 1)
  return keys
    .filter(({ row }) => row.retired_at == null || Number(row.retired_at) + RETIRED_KEY_KEEP_MS > now)
    .sort((a, b) => rank(a) - rank(b) || Number(b.row.created_at) - Number(a.row.created_at))
    .map(({ jwk }) => jwk)
}

/**
 * Key rotation: a new key per algorithm signs from the next start on; the old ones stay verifiable until their
 * tokens expire. `kid` is the new access-token key's.
 */
export async function rotateSigningKeys (
  db: Knex,
  secretKey: string,
  now: number
): Promise<{ kid: string, kids: string[], retired: string[] }> {
  // One transaction: an instance starting mid-rotation must never see no active key, or it would make its own.
  return db.transaction(async (trx) => {
    const active = await trx<KeyRow>('oidc_keys').whereNull('retired_at').pluck('kid')
    await trx('oidc_keys').whereNull('retired_at').update({ retired_at: now })
    const kids: string[] = []
    for (const alg of SIGNING_ALGS) kids.push(await newKey(trx, secretKey, now, alg))
    await trx('oidc_keys').whereNotNull('retired_at').where('retired_at', '<=', now - RETIRED_KEY_KEEP_MS).delete()
    return { kid: kids[0], kids, retired: active }
  })
}

/** The public halves, for verifying access tokens in the credential resolver. */
export function publicJwks (keys: JWK[]): JWK[] {
  return keys.map(({ kty, n, e, kid, alg, use, crv, x, y }) => ({ kty, n, e, kid, alg, use, crv, x, y }))
}
