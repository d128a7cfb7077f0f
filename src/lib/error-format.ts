import { newId } from './ids.js'

/**
 * The two shapes an error answer takes (docs/contract/api-conventions.md#errors): `{ message, code, requestId }` by
 * default, RFC 9457 problem details for a client whose Accept prefers `application/problem+json`.
 */
export interface ErrorBody {
  message: string
  code: string
  errors?: unknown[]
}

export const JSON_TYPE = 'application/json; charset=utf-8'
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8'

/** A client's own `X-Request-Id` is kept when it is 1 to 64 of these characters; anything else gets an id of ours. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/

export function requestIdFrom (header: string | string[] | undefined): string {
  return typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : newId('req')
}

/**
 * A problem's `type`: one URI per code, the same on every deployment (a tag URI, RFC 4151, which RFC 9457 section 3.1.1
 * allows; it names the problem, it is not a page to fetch).
 */
export function problemType (code: string): string {
  return `tag:evidence-hub,2026:errors:${code}`
}

/** A problem's `title`: the code as words (`rate_limited` -> "Rate limited"), the same for every answer of that code. */
export function problemTitle (code: string): string {
  const words = code.replace(/_/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export function withRequestId (body: ErrorBody, requestId: string): ErrorBody & { requestId: string } {
  return { ...body, requestId }
}

export function problemOf (status: number, body: ErrorBody, requestId: string) {
  return {
    type: problemType(body.code),
    title: problemTitle(body.code),
    status,
    detail: body.message,
    code: body.code,
    requestId,
    ...(body.errors ? { errors: body.errors } : {})
  }
}

interface Range { type: string, subtype: string, q: number, index: number }

function rangesOf (accept: string): Range[] {
  return accept.split(',').flatMap((part, index) => {
    const [media, ...params] = part.split(';')
    const [type, subtype] = media.trim().toLowerCase().split('/')
    if (!type || !subtype) return []
    const qParam = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    return Number.isFinite(q) ? [{ type: type.trim(), subtype: subtype.trim(), q: Math.min(Math.max(q, 0), 1), index }] : []
  })
}

/** The range of `accept` that decides for `type/subtype` (the most specific that matches, RFC 9110 section 12.5.1). */
function decidingRange (ranges: Range[], type: string, subtype: string): { q: number, index: number, exact: boolean } | null {
  let best: { range: Range, specificity: number } | null = null
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype
      ? 2
      : range.type === type && range.subtype === '*' ? 1 : range.type === '*' && range.subtype === '*' ? 0 : -1
    if (specificity >= 0 && (!best || specificity > best.specificity)) best = { range, specificity }
  }
  return best ? { q: best.range.q, index: best.range.index, exact: best.specificity === 2 } : null
}

/**
 * Whether the client asks for problem details: its Accept names `application/problem+json` itself (a wildcard such as
 * `*\/*` is no such request) with a quality above zero, and above that of `application/json`, or equal to it and
 * listed first. Anything else, no Accept included, gets the default shape.
 */
export function prefersProblem (accept: string | string[] | undefined): boolean {
  if (!accept) return false
  const text = Array.isArray(accept) ? accept.join(',') : accept
  if (!text.toLowerCase().includes('problem+json')) return false
  const ranges = rangesOf(text)
  const problem = decidingRange(ranges, 'application', 'problem+json')
  if (!problem || !problem.exact || problem.q === 0) return false
  const json = decidingRange(ranges, 'application', 'json')
  if (!json || json.q < problem.q) return true
  return json.q === problem.q && (!json.exact || problem.index < json.index)
}

/** The answer's content type and text, in the shape `accept` asks for: what every writer of an error sends. */
export function errorPayload (status: number, body: ErrorBody, requestId: string, accept: string | string[] | undefined) {
  return prefersProblem(accept)
    ? { contentType: PROBLEM_TYPE, text: JSON.stringify(problemOf(status, body, requestId)) }
    : { contentType: JSON_TYPE, text: JSON.stringify(withRequestId(body, requestId)) }
}
