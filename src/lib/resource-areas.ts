import type { Resource } from './permissions.js'

/**
 * The resources of src/lib/permissions.ts grouped by area, each with one line on what access to it opens. The admin
 * key form lists them this way so a per-resource choice is made knowing what it grants; docs can share the same text.
 * test/auth/resource-areas.test.ts holds every resource to exactly one area and one description.
 */
export interface ResourceArea { name: string, resources: ReadonlyArray<{ resource: Resource, description: string }> }

export const RESOURCE_DESCRIPTIONS: Readonly<Record<Resource, string>> = {
  reviews: 'Reviews: list and read them; write moderates and deletes.',
  products: 'The product catalog reviews are attached to.',
  orders: 'Orders, which mark a reviewer as a verified buyer.',
  imports: 'Bulk imports of reviews, products and orders.',
  uploads: 'Images uploaded with reviews.',
  categories: 'Product categories.',
  faqs: 'Product questions and answers.',
  galleries: 'Photo galleries built from reviews.',
  placements: 'Where widgets appear on the storefront.',
  'web-pages': 'Hosted review and FAQ pages.',
  customers: 'Customer records and their review history.',
  loyalty: 'Loyalty points, tiers and rewards.',
  'review-incentives': 'Rewards offered for writing a review.',
  affiliates: 'Affiliate programmes and their referrals.',
  partner: 'Partner (agency) access to the organization.',
  email: 'Review request emails and the mail log.',
  'email-sequences': 'Timed sequences of review request emails.',
  'email-branding': 'Logo, colours and footer of outgoing email.',
  'email-suppressions': 'Addresses that must not be emailed.',
  'sending-domain': 'The domain email is sent from and its DNS checks.',
  events: 'Events of the resources the key can read, in the event log.',
  webhooks: 'REST hooks and polling of events by automation platforms.',
  'outbound-webhooks': 'Outbound webhooks: register, list, retire, see deliveries.',
  connectors: 'OAuth connections and OAuth clients of automation platforms.',
  storefront: 'Storefront widget settings.',
  analytics: 'Review and email statistics.',
  evidence: 'Store evidence: trust badges and proof of reviews.',
  features: 'Which features and plan limits the store has.',
  account: 'Members, the audit log and store allowed origins.',
  orgs: 'Organization settings and ownership.',
  billing: 'Plans, invoices and payment details.',
  'api-keys': 'API keys: list them; write creates and revokes keys.',
  backups: 'Exports and backups of the store data.',
  support: 'Support tickets with the service.'
}

const AREAS: ReadonlyArray<{ name: string, resources: readonly Resource[] }> = [
  { name: 'Catalog & reviews', resources: ['reviews', 'products', 'orders', 'imports', 'uploads', 'categories', 'faqs', 'galleries', 'placements', 'web-pages'] },
  { name: 'Customers & loyalty', resources: ['customers', 'loyalty', 'review-incentives', 'affiliates', 'partner'] },
  { name: 'Email', resources: ['email', 'email-sequences', 'email-branding', 'email-suppressions', 'sending-domain'] },
  { name: 'Events & integrations', resources: ['events', 'webhooks', 'outbound-webhooks', 'connectors', 'storefront'] },
  { name: 'Insight', resources: ['analytics', 'evidence', 'features'] },
  { name: 'Account', resources: ['account', 'orgs', 'billing', 'api-keys', 'backups', 'support'] }
]

export const RESOURCE_AREAS: readonly ResourceArea[] = AREAS.map((area) => ({
  name: area.name,
  resources: area.resources.map((resource) => ({ resource, description: RESOURCE_DESCRIPTIONS[resource] }))
}))
