/**
 * THE list of what a backup holds (docs/backups.md): every table with a `store_env_id` column is either exported
 * here or excluded below with its reason, and test/backups checks that against the database, so a table added by a
 * later migration fails the suite until it is placed in one list or the other.
 *
 * Restoring writes the rows into another store: `store_env_id` and `org_id` become the target's, columns in
 * `drop` are not exported and are made again (auto-increment ids by the database, an upload's storage key by the
 * restore), columns in `newIds` get fresh ids (they are primary keys
 * across all stores), and columns in `refs` follow the new ids of the table they name. Nothing refers to an
 * auto-increment id, so those are never followed (test/backups checks every ref names a table with `newIds`).
 */
export interface ExportedTable {
  table: string
  /** Columns that order the rows (stable export; auto-increment ids are given again in this order). */
  orderBy: string[]
  drop?: string[]
  newIds?: Record<string, string>
  refs?: Record<string, RefSpec>
  /** The tenant columns the table has, when not both of TENANT_COLUMNS. */
  tenantColumns?: string[]
  /**
   * Columns the file holds sealed with the deployment's secret key (`{ "sealed": "v1.…" }`): a restore here reads them,
   * whoever downloads the file does not. A reviewer's full address is for the admin application only
   * (docs/contract/catalog.md#reviewer-email), and the download is an API route.
   */
  sealed?: string[]
}

/**
 * A column holding the id of a row of another exported table (or of the store itself, STORE). A plain table name
 * is a reference the row cannot exist without: a row whose referenced row is not in the backup is left out.
 */
export interface Ref {
  table: string
  /**
   * When the referenced row is not in the backup (deleted, or a backup older than the table): the row is left out
   * (`skip`), the column becomes null (`null`), names a fresh id of that table (`fresh`: nothing, as in the source,
   * or the row itself when it comes later in the file, e.g. a category's parent), or keeps its value (`keep`: a
   * free-form value that may be an id).
   */
  missing?: 'skip' | 'null' | 'fresh' | 'keep'
  /**
   * A JSON column: `[]` an array of ids (kept sorted, as a set), `[].id` an array of objects naming a row by `id`
   * (the id also followed in the object's other strings, a URL), otherwise the key of an object holding one. Ids not
   * in the backup are left out (objects with them too).
   */
  json?: string
  /** Only on rows with these values (a column whose meaning depends on another). */
  when?: Record<string, string>
}

/** A column's reference: a table name (`{ table }`), a Ref, or several Refs told apart by `when`. */
export type RefSpec = string | Ref | Ref[]

/** A column's references as Refs. */
export const refsOf = (spec: RefSpec): Ref[] => Array.isArray(spec) ? spec : [typeof spec === 'string' ? { table: spec } : spec]

/** The pseudo-table of the store itself: a column holding the store's id follows it to the target. */
export const STORE = 'store_envs'

/** Customers are never deleted (erasure keeps the row), but a version 1 backup has none. */
const CUSTOMER: Ref = { table: 'customers', missing: 'null' }

/** In restore order: a table comes after the tables its `refs` name. */
export const EXPORTED_TABLES: ExportedTable[] = [
  // Each row is followed by its file's content (backup-uploads.ts); the key is made again from the target and new id.
  { table: 'uploads', orderBy: ['id'], newIds: { id: 'upl' }, drop: ['path'] },
  { table: 'customers', orderBy: ['id'], newIds: { id: 'cus' } },
  // Holds the store's id only while active (unique across stores): it must become the target's.
  { table: 'email_sequences', orderBy: ['id'], newIds: { id: 'seq' }, refs: { active_store_env_id: { table: STORE, missing: 'null' } } },
  {
    table: 'categories',
    orderBy: ['created_at', 'id'],
    newIds: { id: 'cat' },
    refs: { parent_id: { table: 'categories', missing: 'fresh' } }
  },
  { table: 'products', orderBy: ['platform_product_id'], drop: ['id'], refs: { category_ids: { table: 'categories', json: '[]' } } },
  {
    table: 'orders',
    orderBy: ['platform_order_id'],
    drop: ['id'],
    // A deleted sequence stays named (by nothing): the scheduler ends a later step rather than send the plain request.
    refs: { customer_id: CUSTOMER, review_request_sequence_id: { table: 'email_sequences', missing: 'fresh' } }
  },
  { table: 'imports', orderBy: ['id'], newIds: { id: 'imp' } },
  {
    table: 'reviews',
    orderBy: ['id'],
    newIds: { id: 'rev' },
    refs: { import_id: { table: 'imports', missing: 'null' }, media: { table: 'uploads', json: '[].id' } },
    sealed: ['author_email']
  },
  { table: 'review_votes', orderBy: ['review_id', 'voter_hash'], refs: { review_id: 'reviews' }, tenantColumns: ['store_env_id'] },
  { table: 'loyalty_settings', orderBy: ['store_env_id'] },
  { table: 'loyalty_accounts', orderBy: ['id'], newIds: { id: 'lya' }, refs: { customer_id: 'customers' } },
  {
    table: 'loyalty_referrals',
    orderBy: ['id'],
    newIds: { id: 'ref' },
    refs: { referrer_customer_id: 'customers', referee_customer_id: CUSTOMER }
  },
  {
    table: 'loyalty_ledger',
    orderBy: ['id'],
    drop: ['id'],
    refs: {
      account_id: 'loyalty_accounts',
      customer_id: 'customers',
      // The key a grant happens once per: a review's or a referral's id for those kinds (loyalty/ledger.ts).
      idempotency_key: [{ table: 'reviews', when: { kind: 'review' }, missing: 'fresh' }, {
        table: 'loyalty_referrals',
        when: { kind: 'referral' },
        missing: 'fresh'
      }]
    }
  },
  { table: 'review_incentives', orderBy: ['id'], newIds: { id: 'rin' } },
  // A code given for a review since deleted stays given (a fresh id that names nothing), so it is never given again.
  {
    table: 'review_incentive_codes',
    orderBy: ['id'],
    drop: ['id'],
    refs: { incentive_id: 'review_incentives', review_id: { table: 'reviews', missing: 'fresh' } }
  },
  {
    table: 'review_incentive_issues',
    orderBy: ['id'],
    newIds: { id: 'rii' },
    // The issue of a deleted review or incentive stays: its review id is what keeps a review to one reward.
    refs: {
      review_id: { table: 'reviews', missing: 'fresh' },
      incentive_id: { table: 'review_incentives', missing: 'fresh' },
      customer_id: CUSTOMER
    }
  },
  // customer_id is free-form (any string the merchant sent); it follows only when it is a customer's id.
  { table: 'affiliates', orderBy: ['id'], newIds: { id: 'aff' }, refs: { customer_id: { table: 'customers', missing: 'keep' } } },
  { table: 'affiliate_referrals', orderBy: ['id'], newIds: { id: 'ref' }, refs: { affiliate_id: 'affiliates' } },
  { table: 'affiliate_settings', orderBy: ['store_env_id'] },
  { table: 'email_branding', orderBy: ['store_env_id'], refs: { logo_upload_id: { table: 'uploads', missing: 'null' } } },
  { table: 'email_templates', orderBy: ['template_key'] },
  { table: 'email_settings', orderBy: ['store_env_id'] },
  { table: 'email_suppressions', orderBy: ['email'] },
  { table: 'faqs', orderBy: ['id'], newIds: { id: 'faq' }, refs: { category_id: { table: 'categories', missing: 'null' } } },
  { table: 'galleries', orderBy: ['id'], newIds: { id: 'gal' } },
  // A photo whose file was missing at export stays (as in the source, its image is not served), naming no upload.
  {
    table: 'gallery_photos',
    orderBy: ['id'],
    newIds: { id: 'gph' },
    refs: { gallery_id: 'galleries', upload_id: { table: 'uploads', missing: 'fresh' } }
  },
  { table: 'gallery_favourites', orderBy: ['photo_id', 'voter_hash'], refs: { photo_id: 'gallery_photos' } },
  { table: 'gallery_leads', orderBy: ['id'], newIds: { id: 'lead' }, refs: { gallery_id: 'galleries' } },
  { table: 'web_pages', orderBy: ['id'], newIds: { id: 'page' } },
  {
    table: 'placements',
    orderBy: ['id'],
    newIds: { id: 'plc' },
    refs: { web_page_id: 'web_pages', settings: { table: 'galleries', json: 'galleryId' } }
  }
]

/** Tables that carry a store id but are not store data to take away, and why. */
export const EXCLUDED_TABLES: Record<string, string> = {
  events: 'The event log records what happened in the source store; a restored store starts its own log',
  event_heads: 'The event log\'s counter, part of the log',
  store_origins: 'The store\'s allowed origins as keys for CORS preflights, settings of the store itself like the list they mirror',
  webhook_subscriptions: 'Holds webhook signing secrets (a backup never holds secrets); re-create subscriptions in the target',
  webhook_deliveries: 'Delivery history of the source store\'s subscriptions',
  webhook_attempts: 'Delivery history of the source store\'s subscriptions',
  mail_outbox: 'Mail already handed to the transport, not store data',
  reward_mails: 'The queue of the source store\'s reward mails, each for a reward granted there (its ledger entry or incentive issue)',
  email_messages: 'The log of mail the source store sent (and the unsubscribe links in it); the suppression list it led to is exported',
  person_sessions: 'Sign-in sessions of people: credentials',
  platform_webhook_secrets:
    'Secrets the store platform signs its deliveries with (a backup never holds secrets); set them again in the target',
  platform_webhook_receipts: 'The log of platform deliveries the source store received',
  platform_api_credentials: 'Access tokens to the store platform\'s API (a backup never holds secrets); set them again in the target',
  sending_domains:
    'Holds the domain\'s DKIM private key (a backup never holds secrets), and a domain is verified for one store; add it to the target again',
  upload_urls: 'Single-use upload grants that expire within minutes',
  upload_uses: 'Which review, gallery photo or branding uses which upload: derived from those rows; rebuilt on restore',
  review_tallies: 'Derived from reviews; rebuilt on restore',
  product_review_tallies: 'Derived from published reviews (the storefront summary); rebuilt on restore',
  review_rollups: 'Derived from reviews (analytics); rebuilt on restore',
  review_period_rollups: 'Derived from reviews (analytics, by week and month); rebuilt on restore',
  review_request_tallies: 'Derived from orders and reviews (analytics); rebuilt on restore',
  engagement_rollups: 'Derived from votes and other storefront engagement (analytics); rebuilt on restore',
  engagement_period_rollups: 'Derived from votes and other storefront engagement (analytics, by week and month); rebuilt on restore',
  store_features: 'The account\'s operator overrides of the plan for this store; the target store has its own plan and features',
  billing_invoices: 'Invoices of the account\'s subscription, not store data; they stay with the account',
  support_requests: 'The account\'s correspondence with support, not store data',
  backups: 'The backups themselves',
  backup_restores: 'The record of restores, kept by the backups'
}

/** What never leaves in a backup, whatever table it is in: the tenant ids (the target's are written instead). */
export const TENANT_COLUMNS = ['store_env_id', 'org_id']
