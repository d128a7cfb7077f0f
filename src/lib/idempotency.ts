import { hash } from 'node:crypto'
import { Readable } from 'node:stream'

/**
 * The `Idempotency-Key` header (docs/contract/api-conventions.md#idempotent-requests): its shape, which routes take
 * it and what makes two requests "the same". Used by the pipeline step that applies it and by the OpenAPI document
 * that declares it, so the two cannot disagree.
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key'
export const REPLAYED_HEADER = 'idempotent-replayed'

/** 1 to 255 printable ASCII characters (space to tilde): what every HTTP stack carries unchanged. */
const KEY = /^[\x20-\x7e]{1,255}$/

/**
 * The key as sent, or why it is refused. Node has already dropped surrounding whitespace, so `'   '` arrives empty;
 * a header sent twice arrives joined (`a, b`) or as an array: a list is not one key.
 */
export function checkKey (value: string | string[]): { key: string } | { problem: string } {
  if (Array.isArray(value)) return { problem: 'Send one Idempotency-Key header' }
  if (KEY.test(value)) return { key: value }
  if (value.length === 0) return { problem: 'The Idempotency-Key header is empty: send 1 to 255 printable ASCII characters' }
  if (value.length > 255) return { problem: 'The Idempotency-Key header is longer than 255 characters' }
  return { problem: 'The Idempotency-Key header may hold only printable ASCII characters (space to ~)' }
}

/** Credentialed POSTs and PUTs (the bulk upserts among them); other methods are idempotent or safe already. */
export function takesIdempotencyKey (route: { method: string | string[], config?: { auth?: string } }): boolean {
  if (route.config?.auth !== 'credential') return false
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  return methods.some((method) => method === 'POST' || method === 'PUT')
}

/** Thrown for a body the step cannot read before the handler does (a stream): no route that takes the key has one. */
export class UnreadableBody extends Error {}

function digestOf (body: unknown): string {
  if (body === undefined || body === null) return ''
  if (body instanceof Readable) throw new UnreadableBody('The body is streamed')
  if (typeof body === 'string' || Buffer.isBuffer(body)) return hash('sha256', body, 'hex')
  return hash('sha256', JSON.stringify(body), 'hex')
}

/**
 * What makes a repeat "the same request": method, path with its query as sent, the store it names and the body as
 * parsed (so the bytes' whitespace does not count, the order of fields does). The credential's organization is the
 * key's namespace, not part of the fingerprint.
 */
export function fingerprintOf (request: { method: string, url: string, body: unknown, store: string | null }): string {
  return hash('sha256', JSON.stringify([request.method, request.url, request.store ?? '', digestOf(request.body)]), 'hex')
}
