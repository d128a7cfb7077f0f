import type { Knex } from 'knex'
/** What a client may grant: never owner (docs/contract/tenancy-and-roles.md#partner-access). */
export type GrantableRole = 'admin' | 'editor' | 'viewer'

export interface PartnerGrantRow {
  id: string
  client_org_id: string
  partner_org_id: string
  role: GrantableRole
  created_by: string
  created_at: number
  updated_at: number
}

/** Partner grants: which organization (the partner, an agency) may act for which (the client), with which role. */
export function partnerGrantsRepository (db: Knex) {
  return {
    find (clientOrgId: string, partnerOrgId: string, trx: Knex = db): Promise<PartnerGrantRow | undefined> {
      return trx<PartnerGrantRow>('partner_grants').where({ client_org_id: clientOrgId, partner_org_id: partnerOrgId }).first()
    },

    /** The granted role, or null: the one query a partner request costs (unique index client_org_id, partner_org_id). */
    async roleOf (clientOrgId: string, partnerOrgId: string): Promise<GrantableRole | null> {
      const row = await db('partner_grants').where({ client_org_id: clientOrgId, partner_org_id: partnerOrgId }).first('role')
      return row ? row.role as GrantableRole : null
    },

    async insert (row: PartnerGrantRow, trx: Knex) {
      await trx('partner_grants').insert(row)
    },

    async setRole (id: string, role: GrantableRole, now: number, trx: Knex) {
      await trx('partner_grants').where({ id }).update({ role, updated_at: now })
    },

    async remove (clientOrgId: string, partnerOrgId: string, trx: Knex): Promise<boolean> {
      return (await trx('partner_grants').where({ client_org_id: clientOrgId, partner_org_id: partnerOrgId }).delete()) > 0
    },

    /** The partners a client has granted, with their names. */
    async ofClient (clientOrgId: string): Promise<Array<PartnerGrantRow & { org_name: string }>> {
      return db('partner_grants as g').join('organizations as o', 'o.id', 'g.partner_org_id')
        .where('g.client_org_id', clientOrgId).orderBy('g.created_at').orderBy('g.id').select('g.*', 'o.name as org_name')
    },

    /** The clients that granted a partner access, with their names. */
    async ofPartner (partnerOrgId: string): Promise<Array<PartnerGrantRow & { org_name: string }>> {
      return db('partner_grants as g').join('organizations as o', 'o.id', 'g.client_org_id')
        .where('g.partner_org_id', partnerOrgId).orderBy('o.name').orderBy('g.id').select('g.*', 'o.name as org_name')
    }
  }
}
export type PartnerGrantsRepository = ReturnType<typeof partnerGrantsRepository>
