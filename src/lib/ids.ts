import { randomFillSync } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

// One system call fills many ids' worth of bytes: randomBytes per id was a tenth of a hot request's CPU. The pool is
// CSPRNG output like any other; each byte is used once.
const pool = Buffer.alloc(8192)
let offset = pool.length

function nextByte (): number {
  if (offset === pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  return pool[offset++]
}

/** Uniform base62 string: rejection sampling keeps every character equally likely. */
export function base62 (length: number): string {
  let out = ''
  while (out.length < length) {
    const byte = nextByte()
    if (byte < 248) out += ALPHABET[byte % 62]
  }
  return out
}

export function newId (prefix: string): string {
  return `${prefix}_${base62(20)}`
}
