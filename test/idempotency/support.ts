import type { FastifyInstance } from 'fastify'
import { call } from '../helper.js'
import type { Tenant } from '../factories.js'

/** A call as the tenant's admin key, with `key` as the Idempotency-Key when given. */
export function keyed (app: FastifyInstance, tenant: Tenant, method: string, url: string, payload?: unknown, key?: string) {
  return call(app, {
    method: method as 'POST',
    url,
    key: tenant.key,
    store: tenant.storeId,
    ...(payload === undefined ? {} : { payload: payload as object }),
    headers: key === undefined ? {} : { 'idempotency-key': key }
  })
}

export const review = (i: number) => ({
  productId: `p${i}`,
  rating: 5,
  body: `Review ${i}`,
  authorName: `Author ${i}`,
  authorEmail: `a${i}@example.test`,
  writtenAt: '2026-01-02T03:04:05.000Z'
})

/** A promise and the function that settles it: a handler waits on it, the test opens it. */
export function gate () {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { opened, open }
}

/**
 * `POST /v1/reviews/probe` (a credentialed route like any other, so it goes through the whole pipeline) that counts
 * its runs and answers 201 `{ run }`. `hold` makes the first run wait until the test opens it; `failFirst` makes the
 * first run throw (a 500).
 */
export function countingProbe (options: { hold?: ReturnType<typeof gate>, failFirst?: boolean } = {}) {
  const state = { runs: 0, entered: gate() }
  const routes = async (app: FastifyInstance) => {
    const schema = { body: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }
    app.post('/v1/reviews/probe', { schema }, async (_request, reply) => {
      const run = ++state.runs
      state.entered.open()
      if (run === 1 && options.hold) await options.hold.opened
      if (run === 1 && options.failFirst) throw new Error('the first run fails')
      return reply.status(201).send({ run })
    })
  }
  return { state, routes }
}
