/**
 * Commission arithmetic without floats (docs/contract/resources.md#affiliates: at most 500 USD per referral). Amounts
 * are integer cents of the order's currency (order totals are stored to the cent), rates are exact integers: the
 * commission rate in basis points, a USD rate as USD per currency unit scaled by 10^8. Every product is a BigInt, so
 * nothing rounds until the one explicit rounding of each step.
 */

/** 500 USD, in cents. */
export const CAP_USD_CENTS = 50_000n
const BP = 10_000n
export const RATE_DIGITS = 8
const RATE_SCALE = 10n ** BigInt(RATE_DIGITS)

/** A decimal string ("0.075", "1") to an integer scaled by 10^digits, exactly; null when it has more digits. */
export function scaledDecimal (text: string, digits: number): bigint | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text)
  if (!match) return null
  const fraction = match[2] ?? ''
  if (fraction.length > digits) return null
  return BigInt(match[1]) * 10n ** BigInt(digits) + BigInt((fraction + '0'.repeat(digits)).slice(0, digits) || '0')
}

/** The inverse of `scaledDecimal`, without trailing zeros ("0.1", "1", "0.0725"). */
export function decimalText (value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits)
  const whole = value / scale
  const fraction = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : String(whole)
}

/** An order total (a number with at most two decimals, as orders store it) in cents, from its decimal text. */
export function centsOf (total: number | string): bigint {
  const text = String(total)
  const cents = scaledDecimal(text, 2)
  // A total is stored rounded to the cent, so its shortest text never has more than two decimals.
  if (cents === null) throw new Error(`not an amount to the cent: ${text}`)
  return cents
}

/** a / b rounded half up, for non-negative a and positive b. */
function divideHalfUp (a: bigint, b: bigint): bigint {
  return (2n * a + b) / (2n * b)
}

export interface Commission {
  /** In cents of the order's currency; null while the USD rate is unknown. */
  cents: bigint | null
  /** The commission's value in USD cents (rounded half up), or null while the rate is unknown. */
  usdCents: bigint | null
  capped: boolean
  status: 'payable' | 'pending_rate'
}

/**
 * rate x total, rounded half up to the cent; then, when its USD value is over 500 USD, the largest amount in the
 * order's currency that is worth no more than 500 USD (rounded down, so a capped commission never pays over the cap).
 * `usdRate`: USD per unit of the currency, scaled by 10^8 (10^8 for USD itself); null: unknown, so nothing is paid.
 */
export function commissionOf (totalCents: bigint, rateBp: bigint, usdRate: bigint | null): Commission {
  if (usdRate === null || usdRate <= 0n) return { cents: null, usdCents: null, capped: false, status: 'pending_rate' }
  const raw = divideHalfUp(totalCents * rateBp, BP)
  const capLocal = CAP_USD_CENTS * RATE_SCALE
  if (raw * usdRate <= capLocal) {
    return { cents: raw, usdCents: divideHalfUp(raw * usdRate, RATE_SCALE), capped: false, status: 'payable' }
  }
  const cents = capLocal / usdRate
  return { cents, usdCents: divideHalfUp(cents * usdRate, RATE_SCALE), capped: true, status: 'payable' }
}

/** The scaled USD rate of a currency from the store's rates (USD is always 1). */
export function usdRateOf (currency: string | null, rates: Record<string, string>): bigint | null {
  if (!currency) return null
  if (currency === 'USD') return RATE_SCALE
  const text = rates[currency]
  return text === undefined ? null : scaledDecimal(text, RATE_DIGITS)
}
