import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { errors } from '../errors.js'
import { checkKey, fingerprintOf, IDEMPOTENCY_HEADER, REPLAYED_HEADER, takesIdempotencyKey, UnreadableBody } from '../lib/idempotency.js'
import { storeHeader } from './charge-and-read-markers.js'

interface HeldKey { orgId: string, keyHash: string, token: string }

declare module 'fastify' {
  interface FastifyRequest {
    /** The `Idempotency-Key` this request claimed, until its answer is kept or the claim given back. */
    idempotencyClaim: HeldKey | null
  }
}

/** Adds a hook to the route's own list of `name` hooks, first or last. */
function addRouteHook (route: RouteOptions, name: 'preValidation' | 'onSend' | 'onResponse', hook: unknown, first = false) {
  const hooks = route as unknown as Record<string, unknown>
  const existing = hooks[name]
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]
  hooks[name] = first ? [hook, ...list] : [...list, hook]
}

/**
 * Step 6, on the routes that take it (credentialed POSTs and PUTs, lib/idempotency.ts): the `Idempotency-Key` header
 * (docs/contract/api-conventions.md#idempotent-requests). Before validation, once the credential and the store are
 * known and the body is parsed, the request claims the key in its organization: a repeat of a request that answered
 * gets that answer again (`Idempotent-Replayed: true`) without running, another request with the key is 400
 * `idempotency_key_reused`, a repeat while the first still runs is 409 `idempotency_key_in_progress`. As the answer
 * leaves, a 4xx or 2xx is kept for 24 hours (a validation failure is an answer like any other, as Stripe keeps it) and
 * a 5xx gives the key back, so a retry can succeed. A request without the header pays nothing; other routes carry no
 * hook at all.
 */
export function idempotencyKeyStep (app: FastifyInstance) {
  const keys = app.services.idempotencyKeys
  app.decorateRequest('idempotencyClaim', null)

  async function claim (request: FastifyRequest, reply: FastifyReply) {
    const sent = request.headers[IDEMPOTENCY_HEADER]
    if (sent === undefined) return
    const checked = checkKey(sent)
    if ('problem' in checked) throw new errors.InvalidRequest(checked.problem)
    const credential = request.credential!
    let fingerprint: string
    try {
      fingerprint = fingerprintOf({ method: request.method, url: request.url, body: request.body, store: storeHeader(request) })
    } catch (err) {
      if (err instanceof UnreadableBody) throw new errors.InvalidRequest('This operation does not take an Idempotency-Key: its body is streamed')
      throw err
    }
    // The organization that holds the credential: a partner's keys are its own, not its client's.
    const outcome = await keys.begin(credential.partnerOrgId ?? credential.orgId, checked.key, fingerprint)
    if (outcome.kind === 'claimed') {
      request.idempotencyClaim = outcome.claim
      return
    }
    if (outcome.kind === 'reused') throw new errors.IdempotencyKeyMismatch()
    if (outcome.kind === 'in_progress') {
      reply.header('retry-after', '1')
      throw new errors.IdempotencyKeyInProgress()
    }
    const { status, headers, body } = outcome.answer
    return reply.code(status).headers(headers).header(REPLAYED_HEADER, 'true').send(body ?? undefined)
  }

  async function keep (request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const held = request.idempotencyClaim
    if (!held) return payload
    request.idempotencyClaim = null
    const kept = reply.statusCode < 500 && !(payload instanceof Readable)
    try {
      if (kept) {
        const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : null
        await keys.complete(held, { status: reply.statusCode, headers: reply.getHeaders(), body })
      } else {
        await keys.abandon(held)
      }
    } catch (err) {
      // The answer still goes out; the key stays claimed until its lease runs out.
      request.log.error({ err }, 'the idempotency key\'s answer could not be kept')
    }
    return payload
  }

  /** A request that never reached onSend (its connection gone first) gives its key back. */
  async function release (request: FastifyRequest) {
    const held = request.idempotencyClaim
    if (!held) return
    request.idempotencyClaim = null
    await keys.abandon(held)
  }

  return function attach (route: RouteOptions) {
    if (!takesIdempotencyKey(route)) return
    addRouteHook(route, 'preValidation', claim, true)
    addRouteHook(route, 'onSend', keep)
    addRouteHook(route, 'onResponse', release)
  }
}
