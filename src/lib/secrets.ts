import { createCipheriv, createDecipheriv, createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto'

/** High-entropy secrets (keys, tokens) need no slow hash: SHA-256 is enough and keeps lookups indexable. */
export function sha256 (value: string): string {
  // The one-shot form: no Hash object per call (every request hashes its credential).
  return hash('sha256', value, 'hex')
}

export function safeEqual (a: string, b: string): boolean {
  const ab = Buffer.from(a)
  const bb = Buffer.from(b)
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab)
    return false
  }
  return timingSafeEqual(ab, bb)
}

function keyFrom (secretKey: string): Buffer {
  return createHash('sha256').update(secretKey).digest()
}

/** AES-256-GCM for secrets that must be read back (webhook signing secrets, OIDC keys). */
export function encrypt (plain: string, secretKey: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyFrom(secretKey), iv)
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.')
}

export function decrypt (sealed: string, secretKey: string): string {
  const [version, iv, tag, body] = sealed.split('.')
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unreadable sealed secret')
  const decipher = createDecipheriv('aes-256-gcm', keyFrom(secretKey), Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}
