import type { Resource } from '../../lib/permissions.js'

/**
 * The event types the service emits (docs/contract/event-visibility.md#events). The set is open
 * (docs/contract/event-visibility.md#events): receivers ignore types they do not know; subscribers name types from this
 * list, or `*`.
 */
export const EVENT_TYPES = [
  'review.created',
  'review.published',
  'review.updated',
  'review.deleted',
  'product.upserted',
  'order.upserted',
  'order.review_request.updated',
  'loyalty.birthday_reward',
  'loyalty.referral_reward',
  'subscription.updated',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'loyalty.account.updated',
  'loyalty.settings.updated',
  'loyalty.referral.created',
  'loyalty.referral.updated',
  'loyalty.referral.deleted',
  'review_incentive.created',
  'review_incentive.updated',
  'review_incentive.deleted',
  'review_incentive.issued',
  'affiliate.created',
  'affiliate.updated',
  'affiliate.deleted',
  'affiliate.referral_recorded',
  'affiliate.referral_updated',
  'email_suppression.created',
  'email_suppression.updated',
  'email_suppression.deleted',
  'email_template.updated',
  'email_settings.updated',
  'email_branding.updated',
  'email_sequence.created',
  'email_sequence.updated',
  'email_sequence.deleted',
  'sending_domain.updated',
  'email_provider.created',
  'email_provider.updated',
  'email_provider.deleted',
  'support_request.created',
  'support_request.updated',
  'platform_webhook.updated',
  'backup.created',
  'backup.updated',
  'gallery.created',
  'gallery.updated',
  'gallery.deleted',
  'gallery.photo.created',
  'gallery.photo.updated',
  'gallery.lead.created',
  'gallery.lead.updated',
  'faq.created',
  'faq.updated',
  'faq.deleted',
  'category.created',
  'category.updated',
  'category.deleted',
  'web_page.created',
  'web_page.updated',
  'web_page.deleted',
  'placement.created',
  'placement.updated',
  'placement.deleted',
  'product.deleted',
  'order.deleted',
  'outbound_webhook.created',
  'outbound_webhook.updated',
  'outbound_webhook.deleted',
  'affiliate_settings.updated',
  'evidence_snapshot.created'
] as const
export type EventType = typeof EVENT_TYPES[number]

const TYPES = new Set<string>(EVENT_TYPES)

export function isEventType (value: string): value is EventType {
  return TYPES.has(value)
}

const RESOURCE_OF_PREFIX: Record<string, Resource> = {
  review: 'reviews',
  order: 'orders',
  product: 'products',
  loyalty: 'loyalty',
  subscription: 'billing',
  customer: 'customers',
  review_incentive: 'review-incentives',
  affiliate: 'affiliates',
  email_suppression: 'email-suppressions',
  email_template: 'email',
  email_settings: 'email',
  email_provider: 'email',
  support_request: 'support',
  platform_webhook: 'webhooks',
  email_branding: 'email-branding',
  email_sequence: 'email-sequences',
  sending_domain: 'sending-domain',
  backup: 'backups',
  gallery: 'galleries',
  faq: 'faqs',
  category: 'categories',
  web_page: 'web-pages',
  placement: 'placements',
  outbound_webhook: 'outbound-webhooks',
  affiliate_settings: 'affiliates',
  evidence_snapshot: 'evidence'
}

/**
 * The resource whose read scope an event needs (docs/contract/event-visibility.md#who-sees-which-events: `review.*`
 * needs `reviews:read`).
 */
export function eventResource (type: string): Resource | null {
  return RESOURCE_OF_PREFIX[type.split('.')[0]] ?? null
}
