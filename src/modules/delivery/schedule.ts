/**
 * docs/contract/webhooks-and-delivery.md#retries: after a failed attempt, retry after about 5 s, 1 min, 5 min, 30 min,
 * 2 h, 6 h, 12 h, 24 h and 24 h (about three days in all), each with a little jitter; then the delivery is failed.
 */
export const RETRY_DELAYS_MS = [5_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000, 86_400_000]
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1
const JITTER = 0.1

/** The delay before the next attempt after `attempts` failed ones, or null when none is left. */
export function retryDelay (attempts: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempts - 1]
  if (base === undefined) return null
  return Math.round(base * (1 + (random() * 2 - 1) * JITTER))
}
