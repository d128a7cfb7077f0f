import { iso } from '../../lib/clock.js'
import { MAX_DATE_MS } from '../../lib/formats.js'
import { clip } from '../../lib/text.js'

/**
 * The review request state of an order (docs/contract/catalog.md#review-requests). Transitions:
 *   (none) -> no state while the order is unfulfilled
 *   upsert with fulfilledAt, a customer email and at least one product not excluded -> scheduled (fulfilledAt + delay)
 *   upsert where every product is excluded / no customer email / no line items -> skipped, reason says which
 *   scheduled/skipped -> recomputed on every upsert of the order (a later fix of the order can re-schedule it)
 *   scheduled, when due -> sent (mail handed to the transport) | failed (transport error) | skipped (products
 *     excluded since scheduling)
 *   sent and failed are final: re-sending the order never mails the customer twice.
 */
export const REVIEW_REQUEST_STATES = ['scheduled', 'sent', 'failed', 'skipped'] as const
export type ReviewRequestState = typeof REVIEW_REQUEST_STATES[number]

/** The size of orders.review_request_reason: reasons quoting product ids and exclusion reasons are cut to fit. */
export const REASON_MAX = 1000

/** `step`: with a sequence (modules/email-sequences), the 0-based step the request is at; null without one. */
export interface ReviewRequest {
  state: ReviewRequestState | null
  reason: string | null
  scheduledFor: number | null
  step?: number | null
  sequenceId?: string | null
}

export interface LineItem {
  platformProductId: string
  quantity: number
}
export interface ProductExclusion {
  platform_product_id: string
  excluded_from_review_requests: boolean | number
  exclusion_reason: string | null
}

export interface PlanInput {
  customerEmail: string | null
  fulfilledAt: number | null
  lineItems: LineItem[]
  current: ReviewRequest
}

function skipped (reason: string): ReviewRequest {
  return { state: 'skipped', reason, scheduledFor: null }
}

/** Why every product of the order is excluded, or null when at least one product may be asked about. */
export function allExcludedReason (lineItems: LineItem[], products: Map<string, ProductExclusion>): string | null {
  const ids = [...new Set(lineItems.map((item) => item.platformProductId))]
  const excluded = ids.map((id) => products.get(id)).filter((p) => p && Boolean(p.excluded_from_review_requests))
  if (ids.length === 0 || excluded.length < ids.length) return null
  const named = excluded.map((p) => `${p!.platform_product_id}${p!.exclusion_reason ? ` (${p!.exclusion_reason})` : ''}`)
  return clip(`Excluded from review requests: product ${named.join(', product ')}`, REASON_MAX)
}

export function planReviewRequest (
  input: PlanInput,
  products: Map<string, ProductExclusion>,
  delayMs: number,
  sequenceId: string | null = null
): ReviewRequest {
  if (input.current.state === 'sent' || input.current.state === 'failed') return input.current
  // A sequence under way (a step already sent) keeps its course: re-sending the order never restarts it.
  if (input.current.state === 'scheduled' && (input.current.step ?? 0) > 0) return input.current
  if (input.fulfilledAt == null) return { state: null, reason: 'Waiting for the order to be fulfilled', scheduledFor: null }
  if (!input.customerEmail) return skipped('The order has no customer email')
  if (input.lineItems.length === 0) return skipped('The order has no line items')
  const excluded = allExcludedReason(input.lineItems, products)
  if (excluded) return skipped(excluded)
  const at = input.fulfilledAt + delayMs
  // Never store a date the API cannot serve (docs/contract/api-conventions.md#dates-and-sizes): such a request is not
  // scheduled.
  if (at > MAX_DATE_MS) {
    return skipped(
      `The request would go out after 9999-12-31 (fulfilled ${iso(input.fulfilledAt)} plus the delay), past the last date the API serves`
    )
  }
  if (sequenceId) {
    return {
      state: 'scheduled',
      reason: `Fulfilled; step 1 of the email sequence goes out at ${iso(at)}`,
      scheduledFor: at,
      step: 0,
      sequenceId
    }
  }
  return { state: 'scheduled', reason: `Fulfilled; the request goes out at ${iso(at)}`, scheduledFor: at }
}

export function sameRequest (a: ReviewRequest, b: ReviewRequest): boolean {
  return a.state === b.state && a.reason === b.reason && Number(a.scheduledFor ?? -1) === Number(b.scheduledFor ?? -1) &&
    (a.step ?? null) === (b.step ?? null) && (a.sequenceId ?? null) === (b.sequenceId ?? null)
}
