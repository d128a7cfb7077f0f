/**
 * The review request funnel groups skips and failures by a stable code: the stored reason is free text that names
 * products and mail errors (src/modules/orders/review-request.ts and review-request.scheduler.ts write it), so
 * counting by text would split one cause into a row per product.
 */
export const REASON_CODES = {
  no_customer_email: 'The order has no customer email',
  no_line_items: 'The order has no line items',
  products_excluded: 'Every product of the order is excluded from review requests',
  date_out_of_range: 'The request would go out after 9999-12-31',
  mail_transport_error: 'The mail transport refused the message',
  other: 'Any other reason'
} as const
export type ReasonCode = keyof typeof REASON_CODES

const PREFIXES: Array<[string, ReasonCode]> = [
  ['The order has no customer email', 'no_customer_email'],
  ['The order has no line items', 'no_line_items'],
  ['Excluded from review requests', 'products_excluded'],
  ['The request would go out after', 'date_out_of_range'],
  ['Mail transport refused', 'mail_transport_error']
]

/** '' for states whose reason is not a cause (scheduled, sent): the funnel lists causes of skips and failures only. */
export function reasonCode (state: string, reason: string | null): ReasonCode | '' {
  if (state !== 'skipped' && state !== 'failed') return ''
  for (const [prefix, code] of PREFIXES) if (reason?.startsWith(prefix)) return code
  return 'other'
}
