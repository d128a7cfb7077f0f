import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { base62, newId } from '../../lib/ids.js'
import { iso, type Clock } from '../../lib/clock.js'
import { sha256 } from '../../lib/secrets.js'
import type { PasswordHasher } from '../../lib/passwords.js'
import { PERSON_ROLES, roleRank, type Role } from '../../lib/permissions.js'
import { actorOf, type Credential } from '../../types.js'
import type { AuditRepository } from '../audit/index.js'
import { marker, type Freshness } from '../../lib/freshness.js'
import type { Person, PeopleRepository } from '../account/index.js'
import type { InvitationRow, InvitationsRepository } from './invitations.repository.js'

const INVITATION_TTL_MS = 7 * 86_400_000
export const MIN_PASSWORD_LENGTH = 12

/**
 * Sends the link by email, logged in the organization's message log; null when no SMTP server is configured (the
 * embedded default shows the link instead).
 */
export type SendInvitation = ((orgId: string, message: { to: string, subject: string, text: string }) => Promise<void>) | null

interface Deps {
  db: Knex
  repo: InvitationsRepository
  people: PeopleRepository
  audit: AuditRepository
  clock: Clock
  hash: PasswordHasher
  publicUrl: string
  send: SendInvitation
  fresh: Freshness
}

/** Invitations to join an organization: a one-time link, valid for 7 days, for one email and one role. */
export function invitationsService ({ db, repo, people, audit, clock, hash, publicUrl, send, fresh }: Deps) {
  function present (row: InvitationRow) {
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      invitedBy: row.invited_by,
      createdAt: iso(row.created_at)!,
      expiresAt: iso(row.expires_at)!
    }
  }

  async function live (token: string, trx: Knex = db): Promise<InvitationRow> {
    const row = /^[0-9A-Za-z]{40}$/.test(token) ? await repo.findByTokenHash(sha256(token), trx) : undefined
    if (!row || row.accepted_at != null || row.revoked_at != null || Number(row.expires_at) <= clock()) {
      throw new errors.NotFound('Invitation')
    }
    return row
  }

  return {
    present,

    /**
     * A person may invite with a role up to their own (docs/contract/tenancy-and-roles.md#no-escalation: no
     * escalation).
     */
    async invite (actor: Credential, input: { email: string, role: Role }, ip: string | null) {
      const email = input.email.trim().toLowerCase()
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) || email.length > 320) throw new errors.InvalidRequest('Enter a valid email address')
      if (!(PERSON_ROLES as readonly string[]).includes(input.role)) {
        throw new errors.InvalidRequest('A person\'s role is owner, admin or editor')
      }
      if (roleRank(input.role) > roleRank(actor.role)) throw new errors.RoleEscalation()
      const existing = await people.findPersonByEmail(email)
      if (existing && await people.membershipRole(actor.orgId, existing.id)) throw new errors.Conflict(`${email} is already a member`)
      const token = base62(40)
      const now = clock()
      const row: InvitationRow = {
        id: newId('inv'),
        org_id: actor.orgId,
        email,
        role: input.role,
        token_hash: sha256(token),
        invited_by: actorOf(actor),
        created_at: now,
        expires_at: now + INVITATION_TTL_MS,
        accepted_at: null,
        revoked_at: null
      }
      await db.transaction(async (trx) => {
        await repo.insert(row, trx)
        await audit.record({
          orgId: actor.orgId,
          action: 'member.invited',
          actor: actorOf(actor),
          subject: `invitation:${row.id}`,
          ip,
          details: { email, role: input.role }
        }, trx)
      })
      const link = `${publicUrl}/admin/invitations/${token}`
      const org = await people.findOrganization(actor.orgId)
      if (send) {
        await send(actor.orgId, {
          to: email,
          subject: `You are invited to ${org?.name ?? 'an organization'} on Evidence Hub`,
          text: `You have been invited to join ${org?.name ?? 'an organization'} as ${input.role}.\n\nOpen this link within 7 days to accept (it works once):\n${link}\n`
        })
      }
      return { invitation: present(row), link, emailed: send !== null }
    },

    listPending (orgId: string) {
      return repo.listPending(orgId, clock()).then((rows) => rows.map(present))
    },

    async revoke (actor: Credential, id: string, ip: string | null) {
      await db.transaction(async (trx) => {
        if (!await repo.close(actor.orgId, id, 'revoked_at', clock(), trx)) throw new errors.NotFound('Invitation')
        await audit.record({
          orgId: actor.orgId,
          action: 'member.invitation_revoked',
          actor: actorOf(actor),
          subject: `invitation:${id}`,
          ip
        }, trx)
      })
    },

    /** What the accept page shows: the organization, the role, and whether the email already has an account. */
    async describe (token: string) {
      const row = await live(token)
      const org = await people.findOrganization(row.org_id)
      const person = await people.findPersonByEmail(row.email)
      return { email: row.email, role: row.role, orgId: row.org_id, orgName: org?.name ?? '', hasAccount: person !== null }
    },

    /**
     * A new person chooses a password; an existing one proves theirs through `authenticate` (with its lock-out).
     * The link is closed in the same transaction that adds the membership, so it works once.
     */
    async accept (
      token: string,
      input: { password: string, name?: string },
      ip: string | null,
      authenticate: (email: string, password: string) => Promise<Person | null>
    ) {
      const row = await live(token)
      let person = await people.findPersonByEmail(row.email)
      if (person) {
        if (!await authenticate(row.email, input.password)) throw new errors.InvalidRequest('The password is not right for this account')
      } else if (input.password.length < MIN_PASSWORD_LENGTH) {
        throw new errors.InvalidRequest(`Choose a password of at least ${MIN_PASSWORD_LENGTH} characters`)
      }
      const passwordHash = person ? null : await hash.hash(input.password)
      const joined = await db.transaction(async (trx) => {
        const now = clock()
        if (!await repo.close(row.org_id, row.id, 'accepted_at', now, trx)) throw new errors.NotFound('Invitation')
        person ??= await people.createPerson({ email: row.email, name: input.name?.trim() || null, passwordHash, now }, trx)
        if (await people.membershipRole(row.org_id, person.id, trx)) throw new errors.Conflict(`${row.email} is already a member`)
        await people.addMembership(row.org_id, person.id, row.role, now, trx)
        await audit.record({
          orgId: row.org_id,
          action: 'member.joined',
          actor: `person:${person.id}`,
          subject: `invitation:${row.id}`,
          ip,
          details: { role: row.role }
        }, trx)
        return { personId: person.id, orgId: row.org_id }
      })
      // Every change to a person's memberships moves their marker (lib/freshness.ts), additions included.
      await fresh.bump([marker.person(joined.personId)])
      return joined
    }
  }
}
export type InvitationsService = ReturnType<typeof invitationsService>
