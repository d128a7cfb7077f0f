import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'

/**
 * BigCommerce for the platform-sync tests: deliveries signed by the Standard Webhooks scheme BigCommerce documents
 * (made here with node:crypto, never by the code under test), and a real local HTTP server standing in for its
 * Management API.
 */
export const fixture = (name: string) => readFileSync(new URL(`../fixtures/platforms/${name}`, import.meta.url))

export const BC_KEY = Buffer.from('bigcommerce-standard-webhooks-key')
export const BC_SECRET = `whsec_${BC_KEY.toString('base64')}`

let deliveries = 0
export const nextDeliveryId = () => `msg_${Date.now()}-${++deliveries}`

/** POSTs a signed BigCommerce delivery; the same `id` again is BigCommerce's retry of it. */
export function deliverBigCommerce (
  app: FastifyInstance,
  storeId: string,
  body: Buffer | string,
  options: { id?: string, at?: number } = {}
) {
  const id = options.id ?? nextDeliveryId()
  const at = options.at ?? Math.floor(Date.now() / 1000)
  const raw = Buffer.from(body)
  const signature = createHmac('sha256', BC_KEY).update(Buffer.concat([Buffer.from(`${id}.${at}.`), raw])).digest('base64')
  return app.inject({
    method: 'POST',
    url: `/v1/webhooks/bigcommerce/${storeId}`,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(at),
      'webhook-signature': `v1,${signature}`
    },
    payload: raw
  })
}

/** A delivery body of the documented shape for a scope and a record id. */
export const scopeBody = (scope: string, type: 'product' | 'order', id: number) =>
  JSON.stringify({
    scope,
    store_id: '1025646',
    data: { type, id },
    hash: 'dd70c0976e06b67aaf671e73f49dcb79230ebf9d',
    created_at: 1561479335,
    producer: 'stores/{store_hash}'
  })

export interface SeenRequest { method: string, url: string, token: string | undefined, accept: string | undefined }
interface Answer { status: number, body?: unknown, delayMs?: number }

/**
 * The stand-in API: `answer(path, status, body)` sets what a path (with its query) answers; any other path answers
 * 404 as BigCommerce does. Every request is kept in `requests`. Closed when the test ends.
 */
export async function fakeBigCommerce (t: Test) {
  const answers = new Map<string, Answer>()
  const requests: SeenRequest[] = []
  const server = createServer((req: IncomingMessage, res) => {
    const url = req.url ?? ''
    requests.push({ method: req.method ?? '', url, token: req.headers['x-auth-token'] as string | undefined, accept: req.headers.accept })
    const answer: Answer = answers.get(url) ?? { status: 404, body: JSON.parse(fixture('bigcommerce-api-not-found.json').toString()) }
    const send = () => {
      if (res.destroyed) return
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body === undefined ? '' : JSON.stringify(answer.body))
    }
    if (answer.delayMs) setTimeout(send, answer.delayMs).unref()
    else send()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer (path: string, status: number, body?: unknown, delayMs?: number) { answers.set(path, { status, body, delayMs }) }
  }
}
export type FakeBigCommerce = Awaited<ReturnType<typeof fakeBigCommerce>>

export const json = (name: string): Record<string, unknown> => JSON.parse(fixture(name).toString())
export const jsonList = (name: string): unknown[] => JSON.parse(fixture(name).toString())
