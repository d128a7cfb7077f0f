import type { Knex } from 'knex'
import type { Role } from '../../lib/permissions.js'

export interface InvitationRow {
  id: string
  org_id: string
  email: string
  role: Role
  token_hash: string
  invited_by: string
  created_at: number
  expires_at: number
  accepted_at: number | null
  revoked_at: number | null
}

/** Tenant ids are explicit arguments, except for the lookup by the link's token (the token is the authority). */
export function invitationsRepository (db: Knex) {
  return {
    insert (row: InvitationRow, trx: Knex = db) {
      return trx('invitations').insert(row)
    },

    findByTokenHash (hash: string, trx: Knex = db): Promise<InvitationRow | undefined> {
      return trx<InvitationRow>('invitations').where({ token_hash: hash }).first()
    },

    listPending (orgId: string, now: number): Promise<InvitationRow[]> {
      return db<InvitationRow>('invitations').where({ org_id: orgId }).whereNull('accepted_at').whereNull('revoked_at')
        .where('expires_at', '>', now).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100)
    },

    /** True only for the one call that closes it, so a link is used once however many race for it. */
    async close (orgId: string, id: string, column: 'accepted_at' | 'revoked_at', now: number, trx: Knex = db): Promise<boolean> {
      const changed = await trx('invitations').where({ org_id: orgId, id }).whereNull('accepted_at').whereNull('revoked_at').update({
        [column]: now
      })
      return changed === 1
    }
  }
}
export type InvitationsRepository = ReturnType<typeof invitationsRepository>
