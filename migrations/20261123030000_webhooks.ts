import type { Knex } from 'knex'

/*
 * The delivery pipeline (docs/contract/webhooks-and-delivery.md#delivery and docs/contract/connectors.md#rest-hooks).
 * Outbound webhooks and connector REST hooks are two kinds of one subscription; events fan out into
 * `webhook_deliveries` (the durable outbox) inside the writer's transaction, workers claim due rows with a lease, and
 * every attempt is kept in `webhook_attempts` for the delivery log.
 */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_subscriptions', (t) => {
    t.string('id', 40).primary()
    t.string('org_id', 40).notNullable().references('organizations.id').onDelete('CASCADE')
    t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE')
    t.string('kind', 16).notNullable() // 'webhook' (outbound webhook) | 'hook' (connector REST hook)
    t.string('url', 2048).notNullable()
    t.text('events').notNullable() // JSON list of event types, or ["*"]
    t.string('description', 500)
    t.text('secret_sealed').notNullable()
    t.string('status', 16).notNullable() // active | disabled | retired | deleted
    t.string('status_reason', 500)
    t.bigInteger('status_changed_at')
    t.integer('consecutive_failures').notNullable().defaultTo(0)
    t.string('created_by', 80)
    t.bigInteger('created_at').notNullable()
    t.index(['store_env_id', 'kind', 'status'])
    t.index(['org_id'])
  })
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id')
    t.string('org_id', 40).notNullable()
    t.string('store_env_id', 40).notNullable()
    // No foreign keys from here: their shared locks on the subscription row deadlocked concurrent completions.
    t.string('subscription_id', 40).notNullable()
    t.bigInteger('event_id').notNullable()
    t.string('status', 16).notNullable() // pending | succeeded | failed | cancelled
    t.integer('attempts').notNullable().defaultTo(0)
    // When the next attempt is due; while claimed, when the claim's lease runs out.
    t.bigInteger('next_attempt_at').notNullable()
    t.string('claim_token', 40)
    t.integer('last_response_code')
    t.string('last_error', 500)
    t.bigInteger('created_at').notNullable()
    t.bigInteger('completed_at')
    t.index(['status', 'next_attempt_at'])
    t.index(['subscription_id', 'id'])
    t.index(['store_env_id'])
  })
  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id')
    t.string('org_id', 40).notNullable()
    t.string('store_env_id', 40).notNullable()
    t.string('subscription_id', 40).notNullable()
    t.bigInteger('delivery_id').notNullable()
    t.bigInteger('event_id').notNullable()
    t.integer('attempt').notNullable()
    t.string('outcome', 16).notNullable() // succeeded | retrying | failed
    t.integer('response_code')
    t.integer('duration_ms').notNullable()
    t.string('error', 500)
    t.bigInteger('next_retry_at')
    t.bigInteger('at').notNullable()
    t.index(['subscription_id', 'id'])
    t.index(['store_env_id'])
  })
}

export async function down (knex: Knex): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_subscriptions']) {
    await knex.schema.dropTableIfExists(table)
  }
}
