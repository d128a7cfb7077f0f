import type { Knex } from 'knex'

/*
 * A referral changes after it is made (its completion, an erasure of the referee's address), and its list takes
 * `updatedSince` like every list (docs/contract/api-conventions.md#incremental-sync): it now records when it last
 * changed.
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.alterTable('loyalty_referrals', (t) => {
    t.bigInteger('updated_at').notNullable().defaultTo(0)
  })
  await knex('loyalty_referrals').update({ updated_at: knex.raw('coalesce(completed_at, created_at)') })
  await knex.schema.alterTable('loyalty_referrals', (t) => {
    t.index(['store_env_id', 'updated_at', 'id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.alterTable('loyalty_referrals', (t) => {
    t.dropIndex(['store_env_id', 'updated_at', 'id'])
    t.dropColumn('updated_at')
  })
}
