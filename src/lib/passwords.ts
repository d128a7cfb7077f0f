import argon2 from 'argon2'
import { base62 } from './ids.js'

/** How people's passwords are hashed and checked; injected so tests can use a cheap cost (production keeps the defaults). */
export interface PasswordHasher {
  hash (password: string): Promise<string>
  /** False for a wrong password, and for a missing hash after the same work as a real check (no timing oracle). */
  verify (hash: string | null | undefined, password: string): Promise<boolean>
}

export interface Argon2Cost { memoryCost?: number, timeCost?: number, parallelism?: number }

/** argon2id at the given cost; no argument means argon2's defaults (64 MiB, 3 passes), the production cost. */
export function argon2Hasher (cost: Argon2Cost = {}): PasswordHasher {
  const hash = (password: string) => argon2.hash(password, { type: argon2.argon2id, ...cost })
  // A hash of a random string nobody knows, at this hasher's cost: only its verification time matters.
  let dummy: Promise<string> | undefined
  return {
    hash,
    async verify (stored, password) {
      dummy ??= hash(base62(20))
      try {
        return await argon2.verify(stored || await dummy, password) && !!stored
      } catch {
        return false
      }
    }
  }
}

export const defaultHasher: PasswordHasher = argon2Hasher()

export function hashPassword (password: string): Promise<string> {
  return defaultHasher.hash(password)
}

export function verifyPassword (hash: string | null | undefined, password: string): Promise<boolean> {
  return defaultHasher.verify(hash, password)
}

export function generatePassword (): string {
  return base62(20)
}
