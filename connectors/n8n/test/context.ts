/**
 * The part of n8n a node calls, for driving the nodes against the real service in the suite: parameters, input
 * items, the node's static data, and `helpers.httpRequestWithAuthentication`, which like n8n's applies the API key
 * credential (its `authenticate` headers), answers `{ statusCode, headers, body }` for `returnFullResponse` with
 * `ignoreHttpStatusErrors`, and otherwise, on an HTTP error, throws n8n's NodeApiError made from its HTTP client's
 * error, as n8n does. `npm run test:n8n` runs the same nodes inside a real n8n.
 */
import type { IDataObject, IHttpRequestOptions, INode } from 'n8n-workflow'
import { workflow } from './package.js'

/** The HTTP client's error class as n8n's helpers throw it: NodeApiError reads the status from its `response`. */
class AxiosError extends Error {
  constructor (message: string, readonly response: { status: number, headers: Record<string, string>, data: unknown }) {
    super(message)
  }
}

export interface Connection { base: string, key: string, storeId: string }

/** A value of a parameter, or a function of the item index (what an expression would give for each item). */
type Parameter = unknown | ((item: number) => unknown)

export interface FakeOptions {
  connection: Connection
  parameters: Record<string, Parameter>
  items?: IDataObject[]
  staticData?: IDataObject
  webhookUrl?: string
  mode?: string
  /** Every request the node sent, with its answer's status. */
  requests?: Array<{ method: string, url: string, status: number }>
  request?: { rawBody?: Buffer, headers: Record<string, string>, body: IDataObject }
}

const NODE: INode = {
  id: 'node',
  name: 'Evidence Hub',
  type: 'n8n-nodes-evidence-hub.evidenceHub',
  typeVersion: 1,
  position: [0, 0],
  parameters: {}
}

async function send (options: IHttpRequestOptions, connection: Connection, log: FakeOptions['requests']) {
  const url = new URL(options.url)
  for (const [name, value] of Object.entries(options.qs ?? {})) url.searchParams.set(name, String(value))
  const headers: Record<string, string> = {
    ...(options.headers as Record<string, string>),
    authorization: `Bearer ${connection.key}`,
    'x-store-env-id': connection.storeId
  }
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(url, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body)
  })
  const text = await res.text()
  const data = text ? JSON.parse(text) : ''
  log?.push({ method: options.method ?? 'GET', url: url.pathname + url.search, status: res.status })
  if (options.returnFullResponse && options.ignoreHttpStatusErrors) {
    return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: data }
  }
  if (res.status >= 400) {
    throw new workflow.NodeApiError(
      NODE,
      new AxiosError(`Request failed with status code ${res.status}`, {
        status: res.status,
        headers: Object.fromEntries(res.headers),
        data
      }) as never
    )
  }
  return data
}

/** An execute, hook, poll or webhook context for a node, as n8n would hand it (what the nodes use of it). */
export function fakeContext (options: FakeOptions): any {
  const items = options.items ?? [{}]
  const staticData = options.staticData ?? {}
  const credentials = { baseUrl: `${options.connection.base}/`, apiKey: options.connection.key, storeEnvId: options.connection.storeId }
  const parameters: Record<string, Parameter> = { authentication: 'apiKey', ...options.parameters }
  function getNodeParameter (name: string, itemOrFallback?: unknown, fallback?: unknown) {
    const item = typeof itemOrFallback === 'number' ? itemOrFallback : 0
    if (!(name in parameters)) {
      if (arguments.length === 3) return fallback
      if (arguments.length === 2 && typeof itemOrFallback !== 'number') return itemOrFallback
      throw new Error(`Could not get parameter "${name}"`)
    }
    const value = parameters[name]
    return typeof value === 'function' ? (value as (item: number) => unknown)(item) : value
  }
  let response: { status: number, body: unknown } | undefined
  return {
    getInputData: () => items.map((json) => ({ json })),
    getNodeParameter,
    getNode: () => NODE,
    getMode: () => options.mode ?? 'trigger',
    getCredentials: async () => credentials,
    getWorkflowStaticData: () => staticData,
    getNodeWebhookUrl: () => options.webhookUrl,
    continueOnFail: () => false,
    getRequestObject: () => options.request,
    getHeaderData: () => options.request?.headers ?? {},
    getBodyData: () => options.request?.body ?? {},
    getResponseObject: () => ({
      status (code: number) {
        return { json (body: unknown) { response = { status: code, body } } }
      }
    }),
    response: () => response,
    helpers: {
      httpRequestWithAuthentication: (_type: string, request: IHttpRequestOptions) => send(request, options.connection, options.requests),
      returnJsonArray: (records: IDataObject[]) => records.map((json) => ({ json }))
    }
  }
}
