import { randomUUID } from 'node:crypto'

/**
 * Retrying a call that did not go through (sdk/README.md, "Retries"): a 429 or 503 after its `Retry-After`, a network
 * error or a timeout of a request that is safe to repeat, and a 409 `idempotency_key_in_progress` (the first attempt
 * of the same key is still running on the server). Every POST and PUT carries an `Idempotency-Key`, the caller's or
 * one made here, and every attempt of one call sends the same one, so a POST whose answer was lost is never applied
 * twice, and a repeated PUT gets the first answer instead of applying (and announcing) the same change again.
 */
export interface RetryOptions {
  /** Attempts in all, the first included (default 5). `retry: false` is one attempt. */
  maxAttempts?: number
  /** The longest `Retry-After` waited for, in ms (default 60,000): a longer one is given up on at once. */
  maxRetryAfterMs?: number
  /** The most one call waits across its retries, in ms (default 120,000): a wait past it is given up on. */
  maxTotalWaitMs?: number
  /** Backoff when the answer names no `Retry-After`: a random wait in [0, min(maxDelayMs, baseDelayMs · 2^(n-1))]. */
  baseDelayMs?: number
  /** The cap of that backoff (default 10,000 ms; `baseDelayMs` defaults to 500). */
  maxDelayMs?: number
  /** Each attempt's own time limit in ms; one that runs out is a network error (default: none). */
  timeoutMs?: number
  /** Told of each retry before its wait, e.g. to log it. */
  onRetry?: (retry: RetryEvent) => void
  /** In [0, 1): the jitter's source (default Math.random); for tests. */
  random?: () => number
  /** Waits `ms`, rejecting with the signal's reason when it aborts (default: a timer); for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number
  /** What failed it: the status answered, or the network error. */
  status?: number
  error?: unknown
  /** The wait before the next attempt, in ms. */
  delayMs: number
  method: string
  url: string
}

export type FetchLike = (input: Request, init?: RequestInit) => Promise<Response>

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key'

const DEFAULTS = {
  maxAttempts: 5,
  maxRetryAfterMs: 60_000,
  maxTotalWaitMs: 120_000,
  baseDelayMs: 500,
  maxDelayMs: 10_000
}

/** Methods whose repetition has the effect of one request (RFC 9110 §9.2.2); POST and PATCH only with a key. */
/** The methods the service keeps an Idempotency-Key for (credentialed POSTs and PUTs). */
const KEYED = new Set(['POST', 'PUT'])
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'])

/** The codes undici and Node give a connection that failed or dropped before an answer came. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED'
])

/** Whether repeating the request cannot apply it twice: an idempotent method, or a key the server deduplicates on. */
export function repeatable (request: Request): boolean {
  return IDEMPOTENT.has(request.method) || request.headers.has(IDEMPOTENCY_KEY_HEADER)
}

/**
 * `Retry-After` in milliseconds from now: delay-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or
 * unreadable. A date in the past is 0.
 */
export function parseRetryAfter (value: string | null, now = Date.now()): number | null {
  if (value === null) return null
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/** A failure before any answer: fetch's `TypeError: fetch failed` and its cause, a dropped socket, a timeout. */
export function isNetworkError (error: unknown): boolean {
  if (!(error instanceof Error)) return false
  if (error.name === 'TimeoutError') return true
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true
  if (error instanceof TypeError && error.message === 'fetch failed') return true
  return error.cause !== undefined && error.cause !== error && isNetworkError(error.cause)
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts. */
export function abortableSleep (ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** The 409 the server answers while the first request with the same Idempotency-Key is still running. */
async function keyInProgress (request: Request, response: Response): Promise<boolean> {
  if (response.status !== 409 || !request.headers.has(IDEMPOTENCY_KEY_HEADER)) return false
  try {
    const body = await response.clone().json() as { code?: unknown }
    return body?.code === 'idempotency_key_in_progress'
  } catch {
    return false
  }
}

/** Whether an answer is worth another attempt: a 429 always (nothing was done), a 503 or a key in progress when repeatable. */
async function retryableAnswer (request: Request, response: Response): Promise<boolean> {
  if (response.status === 429) return true
  if (response.status === 503) return repeatable(request)
  return keyInProgress(request, response)
}

/**
 * A fetch that retries what did not go through, as the options say; with `autoIdempotencyKey`, every POST or PUT
 * without an `Idempotency-Key` gets a random one (the same on each of its attempts). What it gives up on is handed
 * back as it came: the last answer (a 429 with its `Retry-After`, which `unwrap` turns into an ApiError carrying
 * `retryAfter`), or the last network error thrown. An abort of the request's signal stops it at once, waits included.
 */
export function retryingFetch (
  fetchImpl: FetchLike | undefined,
  options: RetryOptions | false = {},
  autoIdempotencyKey = true
): FetchLike {
  const settings = options === false ? { ...DEFAULTS, maxAttempts: 1 } : { ...DEFAULTS, ...options }
  const random = (options !== false && options.random) || Math.random
  const sleep = (options !== false && options.sleep) || abortableSleep
  const onRetry = options !== false ? options.onRetry : undefined
  const timeoutMs = options !== false ? options.timeoutMs : undefined

  function backoff (attempt: number): number {
    return random() * Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1))
  }

  /** One attempt on a copy of the request (its body stays readable for the next), within `timeoutMs` if set. */
  function attemptOnce (request: Request, init?: RequestInit): Promise<Response> {
    const send = fetchImpl ?? globalThis.fetch
    const copy = request.clone()
    if (timeoutMs === undefined) return send(copy, init)
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)])
    return send(new Request(copy, { signal }), init)
  }

  return async function fetchWithRetries (input: Request, init?: RequestInit): Promise<Response> {
    let request = input
    if (autoIdempotencyKey && KEYED.has(request.method) && !request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
      const headers = new Headers(request.headers)
      headers.set(IDEMPOTENCY_KEY_HEADER, randomUUID())
      request = new Request(request, { headers })
    }
    const signal = request.signal
    let waited = 0
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined
      let failure: unknown
      let delayMs: number
      try {
        response = await attemptOnce(request, init)
      } catch (error) {
        // The caller's abort is never retried; a timeout of our own is (isNetworkError).
        if (signal.aborted || !isNetworkError(error) || !repeatable(request)) throw error
        failure = error
      }
      if (response) {
        if (!await retryableAnswer(request, response)) return response
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'))
        if (retryAfter !== null && retryAfter > settings.maxRetryAfterMs) return response
        // A Retry-After is waited for in full, plus up to a tenth of it (at most a second) so that clients
        // refused together do not all come back at the same instant.
        delayMs = retryAfter !== null ? retryAfter + random() * Math.min(1000, retryAfter / 10) : backoff(attempt)
      } else {
        delayMs = backoff(attempt)
      }
      if (attempt >= settings.maxAttempts || waited + delayMs > settings.maxTotalWaitMs) {
        if (response) return response
        throw failure
      }
      onRetry?.({ attempt, status: response?.status, error: failure, delayMs, method: request.method, url: request.url })
      // The answer being retried is dropped: release its connection.
      await response?.body?.cancel().catch(() => {})
      await sleep(delayMs, signal)
      waited += delayMs
    }
  }
}
