/**
 * THE list of what a backup holds (docs/backups.md): every table with a `store_env_id` column is either exported
 * here or excluded below with its reason, and test/backups checks that against the database, so a table added by a
 * later migration fails the suite until it is placed in one list or the other.
 *
 * Restoring writes the rows into another store: `store_env_id` and `org_id` become the target's, columns in
 * `drop` are left to the database (auto-increment ids), columns in `newIds` get fresh ids (they are primary keys
 * across all stores), and columns in `refs` follow the new ids of the table they name.
 */
export interface ExportedTable {
  table: string
  /** Columns that order the rows (stable export, and the round-trip comparison). */
  orderBy: string[]
  drop?: string[]
  newIds?: Record<string, string>
  refs?: Record<string, string>
  /** The tenant columns the table has, when not both of TENANT_COLUMNS. */
  tenantColumns?: string[]
}

/** In restore order: a table comes after the tables its `refs` name. */
export const EXPORTED_TABLES: ExportedTable[] = [
  { table: 'products', orderBy: ['platform_product_id'], drop: ['id'] },
  { table: 'orders', orderBy: ['platform_order_id'], drop: ['id'] },
  { table: 'imports', orderBy: ['id'], newIds: { id: 'imp' } },
  { table: 'reviews', orderBy: ['id'], newIds: { id: 'rev' }, refs: { import_id: 'imports' } },
  { table: 'review_votes', orderBy: ['review_id', 'voter_hash'], refs: { review_id: 'reviews' }, tenantColumns: ['store_env_id'] }
]

/** Tables that carry a store id but are not store data to take away, and why. */
export const EXCLUDED_TABLES: Record<string, string> = {
  events: 'The event log records what happened in the source store; a restored store starts its own log',
  event_heads: 'The event log\'s counter, part of the log',
  webhook_subscriptions: 'Holds webhook signing secrets (a backup never holds secrets); re-create subscriptions in the target',
  webhook_deliveries: 'Delivery history of the source store\'s subscriptions',
  webhook_attempts: 'Delivery history of the source store\'s subscriptions',
  mail_outbox: 'Mail already handed to the transport, not store data',
  person_sessions: 'Sign-in sessions of people: credentials',
  uploads: 'Image files stay where they are; restored reviews keep their media URLs, which keep serving them',
  review_tallies: 'Derived from reviews; rebuilt on restore',
  review_rollups: 'Derived from reviews (analytics); rebuilt on restore',
  review_request_tallies: 'Derived from orders and reviews (analytics); rebuilt on restore',
  engagement_rollups: 'Derived from votes and other storefront engagement (analytics); rebuilt on restore',
  backups: 'The backups themselves',
  backup_restores: 'The record of restores, kept by the backups'
}

/** What never leaves in a backup, whatever table it is in: the tenant ids (the target's are written instead). */
export const TENANT_COLUMNS = ['store_env_id', 'org_id']
