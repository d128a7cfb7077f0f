import type { FastifyReply, FastifyRequest } from 'fastify'
import { decrypt, encrypt } from '../../lib/secrets.js'

const FLASH_COOKIE = 'eh_flash'

/** A message for the next page only. A secret travels here so that it is shown once: reloading finds it gone. */
export interface Flash {
  notice?: string
  error?: string
  secret?: { label: string, value: string }
  link?: { label: string, value: string }
  /** A secret the layout shows once, with a copy button and a warning (OAuth client and webhook secrets). */
  once?: { title: string, label: string, value: string }
}

/** Encrypted (AES-GCM with SECRET_KEY), HttpOnly, SameSite=Strict, scoped to /admin, and cleared when read. */
export function setFlash (reply: FastifyReply, flash: Flash): void {
  const { secretKey, publicUrl } = reply.server.config
  reply.setCookie(FLASH_COOKIE, encrypt(JSON.stringify(flash), secretKey), {
    path: '/admin', httpOnly: true, sameSite: 'strict', secure: publicUrl.startsWith('https://'), maxAge: 300
  })
}

export function takeFlash (request: FastifyRequest, reply: FastifyReply): Flash {
  const sealed = request.cookies[FLASH_COOKIE]
  if (!sealed) return {}
  reply.clearCookie(FLASH_COOKIE, { path: '/admin' })
  try {
    return JSON.parse(decrypt(sealed, reply.server.config.secretKey)) as Flash
  } catch {
    return {}
  }
}
