import fp from 'fastify-plugin'
import cookie from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { base62 } from '../lib/ids.js'
import { sha256 } from '../lib/secrets.js'
import { errors } from '../errors.js'
import { secureCookies } from '../config.js'
import type { Reservation } from '../lib/rate-limiter.js'
import type { Person } from '../types.js'

export const SESSION_COOKIE = 'eh_session'
const SESSION_TTL_MS = 12 * 3600_000
/** Lock-out against password guessing: per email and per IP, failures only. */
const LOGIN_FAILURES = [{ ms: 15 * 60_000, limit: 5 }]
const LOGIN_FAILURES_PER_IP = [{ ms: 15 * 60_000, limit: 50 }]

const releaseAll = (reservations: Reservation[]) => Promise.all(reservations.map((r) => r.release()))

export interface PersonSession { personId: string, orgId: string | null, storeEnvId: string | null, expiresAt: number }

declare module 'fastify' {
  interface FastifyInstance {
    sessions: {
      /** Checks email + password with lock-out; throws 429 rate_limited while locked, returns null on a wrong password. */
      authenticate: (email: string, password: string, ip: string) => Promise<Person | null>
      start: (reply: FastifyReply, personId: string, context?: { orgId?: string | null, storeEnvId?: string | null }) => Promise<void>
      read: (request: FastifyRequest) => Promise<PersonSession | null>
      update: (request: FastifyRequest, context: { orgId?: string | null, storeEnvId?: string | null }) => Promise<void>
      end: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    }
  }
}

/**
 * People's browser sessions: an opaque random cookie (HttpOnly, SameSite=Lax, Secure behind https), stored hashed.
 * The admin application and the OAuth login/consent screens share it.
 */
export default fp(async (app) => {
  if (!app.hasDecorator('parseCookie')) await app.register(cookie, { secret: app.config.secretKey })
  const { people, hash } = app.services
  const secure = secureCookies(app.config)

  function cookieValue (request: FastifyRequest): string | null {
    const value = request.cookies[SESSION_COOKIE]
    return value && /^[0-9A-Za-z]{40}$/.test(value) ? value : null
  }

  /**
   * Counts the attempt as a failure before the slow password check, each budget in one atomic step, so however
   * many attempts arrive at once only the budget's worth are ever checked. Unlike API keys (pipeline/identify-credential.ts),
   * a locked email or IP is refused even with the right password: passwords can be guessed, and a lock-out that
   * let the right guess through would tell the guesser when it found it.
   */
  async function reserveAttempt (email: string, ip: string): Promise<Reservation[]> {
    const reservations = await Promise.all([
      app.limiter.reserve(`login:email:${sha256(loginKey(email))}`, LOGIN_FAILURES),
      app.limiter.reserve(`login:ip:${ip}`, LOGIN_FAILURES_PER_IP)
    ])
    const refused = reservations.find((r) => !r.verdict.allowed)
    if (refused) {
      await releaseAll(reservations)
      throw new errors.RateLimited(refused.verdict.retryAfterSeconds)
    }
    return reservations
  }

  /**
   * One budget for every spelling that signs into the same account. MariaDB's default collation, which people.email
   * keeps, ignores case and accents (`exámple` finds `example`), so the key does too, whether or not an account
   * exists: a key that followed the account found would tell a guesser which addresses have one.
   */
  function loginKey (email: string): string {
    return email.trim().normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()
  }

  async function checkPassword (email: string, password: string): Promise<Person | null> {
    const person = await people.findPersonByEmail(email.trim())
    // The hasher verifies against a dummy hash when the person is unknown, so timing does not reveal who has an account.
    const ok = await hash.verify(person?.passwordHash, password)
    return person && ok ? person : null
  }

  app.decorate('sessions', {
    async authenticate (email: string, password: string, ip: string) {
      const held = await reserveAttempt(email, ip)
      const person = await checkPassword(email, password).catch(async (err: unknown) => {
        await releaseAll(held)
        throw err
      })
      // A right password was no failure: its reservation goes back, so it never counts toward a lock-out.
      if (person) await releaseAll(held)
      return person
    },

    async start (reply, personId, context = {}) {
      const token = base62(40)
      const now = app.clock()
      await app.db('person_sessions').insert({
        id_hash: sha256(token),
        person_id: personId,
        org_id: context.orgId ?? null,
        store_env_id: context.storeEnvId ?? null,
        created_at: now,
        expires_at: now + SESSION_TTL_MS
      })
      reply.setCookie(SESSION_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: SESSION_TTL_MS / 1000 })
    },

    async read (request) {
      const token = cookieValue(request)
      if (!token) return null
      const row = await app.db('person_sessions').where({ id_hash: sha256(token) }).first()
      if (!row || Number(row.expires_at) <= app.clock()) return null
      return { personId: row.person_id, orgId: row.org_id, storeEnvId: row.store_env_id, expiresAt: Number(row.expires_at) }
    },

    async update (request, context) {
      const token = cookieValue(request)
      if (!token) return
      await app.db('person_sessions').where({ id_hash: sha256(token) }).update({
        ...(context.orgId !== undefined ? { org_id: context.orgId } : {}),
        ...(context.storeEnvId !== undefined ? { store_env_id: context.storeEnvId } : {})
      })
    },

    async end (request, reply) {
      const token = cookieValue(request)
      if (token) await app.db('person_sessions').where({ id_hash: sha256(token) }).delete()
      reply.clearCookie(SESSION_COOKIE, { path: '/' })
    }
  })
}, { name: 'session', dependencies: ['services', 'rate-limit'] })
