/**
 * A typed client for the Evidence Hub API. The request and response types come from the service's own OpenAPI
 * document (sdk/openapi.json -> src/schema.ts, `npm run sdk`); calls go through openapi-fetch. This package is
 * standalone: it imports nothing of the service, only openapi-fetch and node:crypto.
 */
import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { paths } from './schema.js'
import { parseRetryAfter, retryingFetch, type RetryOptions } from './retry.js'

export type { components, paths } from './schema.js'
export {
  verifyWebhook,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  LEGACY_SIGNATURE_HEADER,
  STANDARD_WEBHOOK_HEADERS,
  DEFAULT_TOLERANCE_SECONDS
} from './webhooks.js'
export type { VerifyWebhookOptions, VerifyWebhookResult, WebhookScheme } from './webhooks.js'
export { IDEMPOTENCY_KEY_HEADER, isNetworkError, parseRetryAfter, repeatable, retryingFetch } from './retry.js'
export type { FetchLike, RetryEvent, RetryOptions } from './retry.js'

export type EvidenceHubClient = Client<paths>

export interface CreateClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service runs, e.g. `https://api.example.com` (paths already start with `/v1`). */
  baseUrl: string
  /** An API key (`svc_…`), sent as `Authorization: Bearer …`. */
  apiKey?: string
  /** An OAuth access token, sent the same way; give this or `apiKey`. */
  accessToken?: string
  /** The store environment (`env_…`) every store-scoped call acts on, sent as `x-store-env-id`. */
  storeEnvId?: string
  /**
   * When a call is tried again (a 429 or 503 after its `Retry-After`, a network error of a request safe to repeat):
   * see RetryOptions; `false` sends every request once.
   */
  retry?: RetryOptions | false
  /**
   * Whether a POST or PUT sent without an `Idempotency-Key` gets a random one, the same on each attempt (default:
   * true with a credential). The service honours keys on credentialed calls only, so a client without `apiKey`,
   * `accessToken` or an `Authorization` header (a storefront's) sends none. Without a key, a POST is never repeated
   * after a network error or a 503.
   */
  autoIdempotencyKey?: boolean
}

/**
 * A client whose every request carries the credential and the store header. Calls answer openapi-fetch's
 * `{ data, error, response }`, where `error` is the API's `{ message, code }` with `code` typed as the union of the
 * codes that operation documents; `unwrap()` turns it into a thrown `ApiError`. A call may still pass its own
 * `x-store-env-id` in `params.header` to act on another store.
 */
export function createClient (options: CreateClientOptions): EvidenceHubClient {
  const { baseUrl, apiKey, accessToken, storeEnvId, headers, retry, autoIdempotencyKey, fetch, ...rest } = options
  const token = apiKey ?? accessToken
  const client = createFetchClient<paths>({
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: retryingFetch(fetch, retry, autoIdempotencyKey ?? (token !== undefined || hasAuthorization(headers)))
  })
  client.use({
    onRequest ({ request }) {
      if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`)
      if (storeEnvId && !request.headers.has('x-store-env-id')) request.headers.set('x-store-env-id', storeEnvId)
      return request
    }
  })
  return client
}

/** Whether the client's own headers carry a credential. */
function hasAuthorization (headers: CreateClientOptions['headers']): boolean {
  if (!headers) return false
  if (headers instanceof Headers) return headers.has('authorization')
  const entries: Array<[string, unknown]> = Array.isArray(headers) ? headers : Object.entries(headers)
  return entries.some(([name, value]) => name.toLowerCase() === 'authorization' && value !== null && value !== undefined)
}

/** The API's error body: branch on `code`, show `message` to people, quote `requestId` to support. */
export interface ApiErrorBody {
  message: string
  code: string
  /** The request's id, as in the `x-request-id` header. */
  requestId?: string
  /** With `invalid_request`: every problem, with the path of the field. */
  errors?: Array<{ path?: string, message?: string }>
}

type AnyErrorBody = { message?: string, detail?: string, code?: string, requestId?: string, errors?: ApiErrorBody['errors'] }

/**
 * A non-2xx answer, thrown by `unwrap()` and the helpers. A 429 or 503 gets here once the client's retries have
 * given up on it (too many, or a `Retry-After` longer than it waits): `retryAfter` then says in how many seconds the
 * service would take it.
 */
export class ApiError<Code extends string = string> extends Error {
  readonly status: number
  readonly code: Code
  readonly errors: ApiErrorBody['errors']
  /** The answer's `Retry-After` in seconds, when it named one. */
  readonly retryAfter: number | undefined
  /** The request's id, to quote to support: from the body, else the `x-request-id` header. */
  readonly requestId: string | undefined

  /** `body` is the default error shape or RFC 9457 problem details (`detail` for `message`). */
  constructor (status: number, body: AnyErrorBody | undefined, response?: Response) {
    super(body?.message ?? body?.detail ?? `HTTP ${status}`)
    this.name = 'ApiError'
    this.status = status
    this.code = (body?.code ?? 'http_' + status) as Code
    this.errors = body?.errors
    const retryAfter = parseRetryAfter(response?.headers.get('retry-after') ?? null)
    this.retryAfter = retryAfter === null ? undefined : Math.ceil(retryAfter / 1000)
    this.requestId = body?.requestId ?? response?.headers.get('x-request-id') ?? undefined
  }
}

/** The error codes an error value may carry: `code` of the operation's documented error bodies. */
type CodeOf<E> = E extends { code: infer C extends string } ? C : string

/**
 * `data` of a call, or a thrown `ApiError` whose `code` is typed with the operation's documented codes:
 * `const { data } = unwrap(await client.GET('/v1/reviews'))`.
 */
export function unwrap<D, E> (result: { data?: D, error?: E, response: Response }): D {
  if (result.error !== undefined || !result.response.ok) {
    throw new ApiError<CodeOf<E>>(result.response.status, result.error as AnyErrorBody | undefined, result.response)
  }
  return result.data as D
}

/** `meta` of every paged list (`page` is 1-based; `limit` above 100 is clamped to 100). */
export interface PageMeta { total: number, page: number, limit: number, totalPages: number }

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never
type GetOk<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? JsonOf<R> : never
type GetQuery<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never

/** The GET paths that answer a `{ data, meta }` page. */
export type PagedPath = { [P in keyof paths]: GetOk<P> extends { data: unknown[], meta: PageMeta } ? P : never }[keyof paths]
/** One item of a paged path's `data`. */
export type ItemOf<P extends PagedPath> = GetOk<P> extends { data: Array<infer T> } ? T : never
export type PageQuery<P extends PagedPath> = Omit<GetQuery<P>, 'page'>

/**
 * Every item of a paged list, page after page, from `page` 1 (or `query.page`) to the last: e.g.
 * `for await (const review of paginate(client, '/v1/reviews', { limit: 100 })) …`. Path parameters, if the path
 * has any, go in `path`. Throws `ApiError` on an error answer.
 */
export async function * paginate<P extends PagedPath> (
  client: EvidenceHubClient,
  path: P,
  query: PageQuery<P> & { page?: number } = {} as PageQuery<P>,
  options: { path?: Record<string, string> } = {}
): AsyncGenerator<ItemOf<P>, void, undefined> {
  for await (const page of pages(client, path, query, options)) yield * page.data
}

/** The pages themselves, with their `meta`, for callers that want totals or to stop early. */
export async function * pages<P extends PagedPath> (
  client: EvidenceHubClient,
  path: P,
  query: PageQuery<P> & { page?: number } = {} as PageQuery<P>,
  options: { path?: Record<string, string> } = {}
): AsyncGenerator<{ data: Array<ItemOf<P>>, meta: PageMeta }, void, undefined> {
  const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: unknown, error?: unknown, response: Response }>
  let page = (query as { page?: number }).page ?? 1
  while (true) {
    const body = unwrap(await get(path, { params: { query: { ...query, page }, path: options.path } })) as {
      data: Array<ItemOf<P>>
      meta: PageMeta
    }
    yield body
    if (body.data.length === 0 || body.meta.page >= body.meta.totalPages) return
    page = body.meta.page + 1
  }
}

export type Event = GetOk<'/v1/events'> extends { events: Array<infer E> } ? E : never

export interface EventCursorOptions {
  /** The id of the last event you processed (`evt_…`) or a `next_cursor`; omitted: from the first event. */
  since?: string
  /** Events per request, at most 500 (default 100). */
  limit?: number
}

/**
 * The event log after `since`, oldest first, until it is caught up (`next_cursor` null). Store each event's id
 * once processed and pass it back as `since` to resume without gaps or repeats.
 */
export async function * eventCursor (client: EvidenceHubClient, options: EventCursorOptions = {}): AsyncGenerator<Event, void, undefined> {
  let since = options.since
  while (true) {
    const body = unwrap(await client.GET('/v1/events', { params: { query: { since, limit: options.limit } } }))
    yield * body.events as Event[]
    if (body.next_cursor === null || body.events.length === 0) return
    since = body.next_cursor
  }
}

export interface PollEventsOptions extends EventCursorOptions {
  /** Wait between polls once caught up, in milliseconds (default 5000). */
  intervalMs?: number
  /** Stops the polling; the generator then returns. */
  signal?: AbortSignal
}

/**
 * The event log after `since`, forever: reads to the end with `eventCursor`, waits `intervalMs`, and reads on from
 * the last event it yielded. Ends when `signal` aborts.
 */
export async function * pollEvents (client: EvidenceHubClient, options: PollEventsOptions = {}): AsyncGenerator<Event, void, undefined> {
  let since = options.since
  const intervalMs = options.intervalMs ?? 5000
  while (!options.signal?.aborted) {
    for await (const event of eventCursor(client, { since, limit: options.limit })) {
      since = event.id
      yield event
      if (options.signal?.aborted) return
    }
    await sleep(intervalMs, options.signal)
  }
}

function sleep (ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
