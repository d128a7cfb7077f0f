import type { Knex } from 'knex'
import { exactIds } from '../src/lib/exact-collation.js'

/*
 * Review incentives (issue 16, docs/contract/resources.md#review-incentives): rules, their coupon code pools, and one
 * issue per review (the unique review_id is what keeps it to one reward, whatever republishes or concurrent moderators
 * do).
 */

export async function up (knex: Knex): Promise<void> {
  const id = await exactIds(knex)
  await knex.schema.createTable('review_incentives', (t) => {
    id(t.string('id', 40).primary())
    id(t.string('org_id', 40).notNullable())
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    t.string('type', 16).notNullable()
    t.integer('points')
    t.tinyint('min_rating')
    t.boolean('requires_media').notNullable()
    t.boolean('verified_only').notNullable()
    t.integer('pool_empty_count').notNullable().defaultTo(0)
    t.bigInteger('pool_empty_at')
    t.bigInteger('created_at').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.index(['store_env_id', 'updated_at', 'id'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('review_incentive_codes', (t) => {
    t.bigIncrements('id')
    id(t.string('org_id', 40).notNullable())
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    id(t.string('incentive_id', 40).notNullable().references('review_incentives.id').onDelete('CASCADE'))
    id(t.string('code', 100).notNullable())
    id(t.string('review_id', 40))
    t.bigInteger('issued_at')
    t.bigInteger('created_at').notNullable()
    t.unique(['incentive_id', 'code'])
    t.index(['incentive_id', 'review_id', 'id'])
    t.index(['store_env_id'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('review_incentive_issues', (t) => {
    id(t.string('id', 40).primary())
    id(t.string('org_id', 40).notNullable())
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    id(t.string('review_id', 40).notNullable().unique())
    id(t.string('incentive_id', 40).notNullable())
    t.string('status', 16).notNullable()
    id(t.string('code', 100))
    t.integer('points')
    id(t.string('customer_id', 40))
    t.bigInteger('created_at').notNullable()
    t.index(['store_env_id', 'created_at'])
    t.index(['incentive_id'])
    t.index(['org_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  for (const table of ['review_incentive_issues', 'review_incentive_codes', 'review_incentives']) await knex.schema.dropTableIfExists(table)
}
