import argon2 from 'argon2'
import { base62 } from './ids.js'

export function hashPassword (password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id })
}

export async function verifyPassword (hash: string | null | undefined, password: string): Promise<boolean> {
  if (!hash) return false
  try {
    return await argon2.verify(hash, password)
  } catch {
    return false
  }
}

export function generatePassword (): string {
  return base62(20)
}
