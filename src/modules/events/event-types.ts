import type { Resource } from '../../lib/permissions.js'

/**
 * The event types the service emits (decisions.md section 8). The set is open (service-api.md section 6.4):
 * receivers ignore types they do not know; subscribers name types from this list, or `*`.
 */
export const EVENT_TYPES = [
  'review.created', 'review.published', 'review.updated', 'review.deleted',
  'product.upserted', 'order.upserted', 'order.review_request.updated',
  'loyalty.birthday_reward', 'loyalty.referral_reward'
] as const
export type EventType = typeof EVENT_TYPES[number]

const TYPES = new Set<string>(EVENT_TYPES)

export function isEventType (value: string): value is EventType {
  return TYPES.has(value)
}

const RESOURCE_OF_PREFIX: Record<string, Resource> = { review: 'reviews', order: 'orders', product: 'products', loyalty: 'loyalty' }

/** The resource whose read scope an event needs (decisions.md section 9: `review.*` needs `reviews:read`). */
export function eventResource (type: string): Resource | null {
  return RESOURCE_OF_PREFIX[type.split('.')[0]] ?? null
}
