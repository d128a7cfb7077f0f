import type { Knex } from 'knex'

/*
 * Partner (agency) access (docs/contract/tenancy-and-roles.md#partner-access): a client organization grants a partner
 * organization a role (at most admin) on its stores. One row per pair; revoking deletes it, so the next request finds
 * no grant.
 */
export async function up (knex: Knex): Promise<void> {
  let collation: string | undefined
  if (knex.client.config.client === 'mysql2') {
    const [rows] = await knex.raw(
      'SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \'organizations\' AND COLUMN_NAME = \'id\''
    )
    collation = (rows as Array<{ c: string }>)[0]?.c
  }
  await knex.schema.createTable('partner_grants', (t) => {
    const id = (name: string) => {
      const column = t.string(name, 40)
      if (collation) column.collate(collation)
      return column
    }
    id('id').primary()
    id('client_org_id').notNullable().references('organizations.id').onDelete('CASCADE')
    id('partner_org_id').notNullable().references('organizations.id').onDelete('CASCADE')
    t.string('role', 16).notNullable()
    t.string('created_by', 80).notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.unique(['client_org_id', 'partner_org_id'])
    t.index(['partner_org_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('partner_grants')
}
