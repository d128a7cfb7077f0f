import type {
  IDataObject, IExecuteFunctions, IHookFunctions, IHttpRequestMethods, IHttpRequestOptions, ILoadOptionsFunctions, INode,
  IPollFunctions, IWebhookFunctions, JsonObject
} from 'n8n-workflow'
import { NodeApiError, sleep } from 'n8n-workflow'

export type Context = IExecuteFunctions | IHookFunctions | IPollFunctions | ILoadOptionsFunctions | IWebhookFunctions

/** The two ways to connect, as the nodes' Authentication parameter names them, and their credential types. */
export const CREDENTIAL_TYPES = { oAuth2: 'evidenceHubOAuth2Api', apiKey: 'evidenceHubApi' } as const
export type Authentication = keyof typeof CREDENTIAL_TYPES

/**
 * How often one request waits out a 429 before its error reaches the workflow. The per-key limits (10/s, 50/10 s,
 * 200/min) answer with Retry-After; a Return All over many pages meets them and should slow down, not fail.
 */
export const RATE_LIMIT_WAITS = 10
/** The longest wait for one Retry-After: a longer answer (or none) still waits this long before the next try. */
const MAX_WAIT_MS = 60_000

/** A parameter of the node, read the way each kind of context reads it (the execute context wants an item index). */
function parameter (ctx: Context, name: string): unknown {
  return 'getInputData' in ctx ? (ctx as IExecuteFunctions).getNodeParameter(name, 0) : (ctx as IPollFunctions).getNodeParameter(name)
}

export interface Connection {
  credentialType: string
  baseUrl: string
  /** The store every call acts on: the API key credential's, or the one the OAuth token response named. */
  storeEnvId: string
}

export async function connectionOf (ctx: Context): Promise<Connection> {
  const authentication = parameter(ctx, 'authentication') as Authentication
  const credentialType = CREDENTIAL_TYPES[authentication] ?? CREDENTIAL_TYPES.oAuth2
  const credentials = await ctx.getCredentials(credentialType)
  const token = credentials.oauthTokenData as IDataObject | undefined
  const storeEnvId = String((authentication === 'apiKey' ? credentials.storeEnvId : token?.store_env_id) ?? '')
  return { credentialType, baseUrl: String(credentials.baseUrl ?? '').replace(/\/+$/, ''), storeEnvId }
}

/** `/v1/reviews/:id` with `{ id: 'rev_1' }` → `/v1/reviews/rev_1`, each value encoded as one path segment. */
export function pathWith (path: string, values: Record<string, unknown>): string {
  return path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(String(values[name] ?? '')))
}

/** Retry-After in seconds or as an HTTP date; a missing or unreadable one waits a second. */
export function retryAfterMs (value: unknown, now = Date.now()): number {
  const text = String(Array.isArray(value) ? value[0] : value ?? '')
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now
  return Math.min(Math.max(Number.isFinite(ms) ? ms : 1000, 1000), MAX_WAIT_MS)
}

/** An HTTP answer that is an error: its status and body (`{ message, code }` from the API). */
export interface Failure { status: number, body: unknown }

/**
 * The answer inside an error n8n's request helpers threw: they throw a NodeApiError that keeps the response's
 * status (`httpCode`) and body (`context.data`), not the response itself.
 */
function failureOf (error: unknown): Failure | undefined {
  const { httpCode, context } = error as { httpCode?: unknown, context?: { data?: unknown } }
  return httpCode === undefined || httpCode === null ? undefined : { status: Number(httpCode), body: context?.data }
}

/** The error a workflow shows for a failed call: the API's `message`, its `code` in the description. */
export function apiError (node: INode, failure: Failure | unknown, itemIndex?: number): NodeApiError {
  const plain = typeof failure === 'object' && failure !== null && 'status' in failure && !(failure instanceof Error)
  const answer = plain ? failure as Failure : failureOf(failure)
  const body = answer?.body as { message?: unknown, code?: unknown } | undefined
  if (answer && typeof body?.message === 'string') {
    return new NodeApiError(node, body as JsonObject, {
      message: body.message,
      description: typeof body.code === 'string' ? `code: ${body.code}` : undefined,
      httpCode: String(answer.status),
      itemIndex
    })
  }
  if (failure instanceof NodeApiError) return failure
  return new NodeApiError(
    node,
    (failure instanceof Error ? failure : { message: `HTTP ${answer?.status}`, httpCode: String(answer?.status) }) as JsonObject,
    { itemIndex }
  )
}

/** The HTTP status of an error `apiRequest` threw, e.g. 404 for a hook deleted on the service's side. */
export function statusOf (error: unknown): number | undefined {
  return failureOf(error)?.status
}

export interface RequestOptions {
  qs?: IDataObject
  body?: IDataObject
  itemIndex?: number
}

interface FullResponse { statusCode: number, headers: Record<string, unknown>, body: unknown }

/**
 * One call of the REST API with the node's credential and store. The answer is read whole (status, headers, body)
 * so that a 429 can wait for its Retry-After and try again, RATE_LIMIT_WAITS times. A 401 is sent once more the
 * plain way, since n8n refreshes an OAuth2 token only when its helper throws on a 401: it refreshes, stores the
 * rotated pair and repeats the call (an API key's 401 stays an error).
 */
export async function apiRequest (ctx: Context, method: IHttpRequestMethods, path: string, options: RequestOptions = {}): Promise<any> {
  const { credentialType, baseUrl, storeEnvId } = await connectionOf(ctx)
  // A new object for each try: the helpers sign (and so change) the options they are given.
  const request = (whole: boolean): IHttpRequestOptions => ({
    method,
    url: `${baseUrl}${path}`,
    headers: { accept: 'application/json', 'x-store-env-id': storeEnvId },
    json: true,
    ...(options.qs && Object.keys(options.qs).length > 0 ? { qs: options.qs } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(whole ? { returnFullResponse: true, ignoreHttpStatusErrors: true } : {})
  })
  const send = (whole: boolean) => ctx.helpers.httpRequestWithAuthentication.call(ctx, credentialType, request(whole))
  for (let waits = 0; ; waits++) {
    let answer: FullResponse
    try {
      answer = await send(true) as FullResponse
    } catch (error) {
      throw apiError(ctx.getNode(), error, options.itemIndex)
    }
    if (answer.statusCode < 400) return answer.body
    if (answer.statusCode === 401) {
      try {
        return await send(false)
      } catch (error) {
        throw apiError(ctx.getNode(), error, options.itemIndex)
      }
    }
    if (answer.statusCode !== 429 || waits >= RATE_LIMIT_WAITS) {
      throw apiError(ctx.getNode(), { status: answer.statusCode, body: answer.body }, options.itemIndex)
    }
    await sleep(retryAfterMs(answer.headers['retry-after']))
  }
}

interface Page { data: IDataObject[], meta: { page: number, totalPages: number } }

/** The largest page the API serves. */
export const PAGE_SIZE = 100

/**
 * The records of a paged list (`{ data, meta }`), page after page: all of them, or the first `limit`. Each page is
 * one call, so a long Return All is paced by apiRequest's waits on 429.
 */
export async function listAll (
  ctx: Context,
  path: string,
  qs: IDataObject,
  limit: number | 'all',
  itemIndex?: number
): Promise<IDataObject[]> {
  const records: IDataObject[] = []
  const size = limit === 'all' ? PAGE_SIZE : Math.min(limit, PAGE_SIZE)
  for (let page = 1; ; page++) {
    const answer = await apiRequest(ctx, 'GET', path, { qs: { ...qs, page, limit: size }, itemIndex }) as Page
    records.push(...answer.data)
    if (limit !== 'all' && records.length >= limit) return records.slice(0, limit)
    if (answer.data.length === 0 || page >= answer.meta.totalPages) return records
  }
}
