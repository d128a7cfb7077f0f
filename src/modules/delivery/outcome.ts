import { retryDelay } from './schedule.js'

/**
 * What one attempt's answer decides (docs/contract/event-visibility.md#events): recorded by the worker's outcome step.
 */
export type Verdict =
  | { kind: 'succeeded' }
  /** 410 Gone: the subscription ends (a connector hook is deleted, a webhook retired). */
  | { kind: 'gone', endAs: 'deleted' | 'retired', reason: string }
  /** Anything else, no answer included: retried at `retryAt`, or, with no retry left (null), disabled for `disableReason`. */
  | { kind: 'failed', error: string, retryAt: number | null, disableReason: string }

export interface Attempt {
  /** The subscription's kind and the failed attempts before this one. */
  delivery: { kind: string, attempts: number }
  responseCode: number | null
  error: string | null
  now: number
}

/** Only a 2xx answer is a success: a redirect is not followed, and any other answer but 410 is retried. */
export function verdictOf ({ delivery, responseCode, error, now }: Attempt): Verdict {
  // No answer (null) is status 0: neither a success nor a 410.
  const status = Number(responseCode)
  if (status >= 200 && status < 300) return { kind: 'succeeded' }
  if (status === 410) {
    return { kind: 'gone', endAs: delivery.kind === 'hook' ? 'deleted' : 'retired', reason: 'The receiver answered 410 Gone' }
  }
  const failure = error ?? `HTTP ${responseCode}`
  const delay = retryDelay(delivery.attempts + 1)
  return {
    kind: 'failed',
    error: failure,
    retryAt: delay === null ? null : now + delay,
    disableReason: `Disabled after ${delivery.attempts + 1} failed attempts over about three days; last error: ${failure}`
  }
}
