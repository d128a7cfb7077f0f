import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { build } from '../helper.js'
import { DateTime } from '../../src/schemas.js'

/** A route whose querystring and body take a date-time, as later resources do (`updatedSince`, `since`). */
const probe = async (app: FastifyInstance) => {
  app.post('/v1/date-probe', {
    config: { auth: 'public' },
    schema: { querystring: Type.Object({ at: Type.Optional(DateTime) }), body: Type.Object({ at: DateTime }) }
  }, async () => ({ ok: true }))
}

const REFUSED = [
  '2027-02-30T00:00:00Z',
  '2026-02-29T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '1969-12-31T23:59:59Z',
  '9999-12-31T23:00:00-02:00',
  '2027-01-01T23:59:60Z',
  '2027-01-01 00:00:00Z'
]
const ACCEPTED = ['1970-01-01T00:00:00Z', '2028-02-29T12:00:00+02:00', '9999-12-31T23:59:59.999Z', '2027-01-01T00:00:00.123456789z']

t.test('route validation takes the same date-times as bulk items: real calendar days within 1970-9999', async (t) => {
  const app = await build(t, { routes: probe })
  for (const at of REFUSED) {
    const query = await app.inject({
      method: 'POST',
      url: `/v1/date-probe?at=${encodeURIComponent(at)}`,
      payload: { at: '2027-01-01T00:00:00Z' }
    })
    t.equal(query.statusCode, 400, `query ${at}`)
    t.equal(query.json().code, 'invalid_request')
    const body = await app.inject({ method: 'POST', url: '/v1/date-probe', payload: { at } })
    t.equal(body.statusCode, 400, `body ${at}`)
  }
  for (const at of ACCEPTED) {
    const res = await app.inject({ method: 'POST', url: `/v1/date-probe?at=${encodeURIComponent(at)}`, payload: { at } })
    t.equal(res.statusCode, 200, at)
  }
})
