import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyRequest, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Credential } from '../types.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * app.inject as a credential this request already resolved (an MCP tool call becoming its REST call): the
     * injected request skips the second lookup and runs everything after it as REST does (limits, store, role,
     * scopes, plan, subscription, audit). Only this process can hand a credential over (see `handOver`).
     */
    injectAs: (credential: Credential, options: InjectOptions) => Promise<LightMyRequestResponse>
  }
}

/** Carries the nonce of a credential handed to an injected request (`app.injectAs`); meaningless off the process. */
const HAND_OVER_HEADER = 'x-evidence-hub-hand-over'

/**
 * The first step's shortcut: a credential handed over by a request of this process, which then needs no
 * identifying. `injectAs` hands one over; `handOver` is what the pipeline asks of each request.
 */
export function handOverStep (app: FastifyInstance) {
  /**
   * Credentials handed to injected requests, under single-use nonces (random UUIDs: 122 CSPRNG bits) that exist
   * only while the injection runs and never leave the process. A client sending the header cannot name a live
   * nonce, and a request off the network is never taken for an injected one anyway, so the header can name nothing
   * a caller could forge; without a live nonce the request resolves its own credential as always.
   */
  const handedOver = new Map<string, Credential>()

  async function injectAs (credential: Credential, options: InjectOptions): Promise<LightMyRequestResponse> {
    const nonce = randomUUID()
    handedOver.set(nonce, credential)
    try {
      return await app.inject({ ...options, headers: { ...options.headers, [HAND_OVER_HEADER]: nonce } })
    } finally {
      handedOver.delete(nonce)
    }
  }

  function handOver (request: FastifyRequest): Credential | null {
    const nonce = request.headers[HAND_OVER_HEADER]
    if (nonce === undefined) return null
    delete request.headers[HAND_OVER_HEADER]
    if (typeof nonce !== 'string' || !(request.raw as { isLightMyRequest?: boolean }).isLightMyRequest) return null
    const credential = handedOver.get(nonce) ?? null
    handedOver.delete(nonce)
    return credential
  }

  return { injectAs, handOver }
}
