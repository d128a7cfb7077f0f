import t from 'tap'
import { signatureHeaders } from '../../../src/modules/delivery/sign.js'
import { verifyDelivery, TOLERANCE_SECONDS, newItems, nextSeen, apiError, retryAfterMs, workflow } from './package.js'

const body = JSON.stringify({ id: 'evt_7', type: 'review.created', reviewId: 'rev_1' })
const signed = (secret: string, at: number) => signatureHeaders(secret, body, at, 'http://127.0.0.1', 'dlv_1')['x-service-signature-v2']

t.test('a delivery signed by the service with the hook\'s secret verifies, as bytes or text', async (t) => {
  const now = Date.now()
  t.ok(verifyDelivery(signed('whsec_a', now), Buffer.from(body), 'whsec_a', now))
  t.ok(verifyDelivery(signed('whsec_a', now), body, 'whsec_a', now))
})

t.test('a delivery with another secret, another body, or no header does not verify', async (t) => {
  const now = Date.now()
  t.notOk(verifyDelivery(signed('whsec_b', now), body, 'whsec_a', now))
  t.notOk(verifyDelivery(signed('whsec_a', now), body.replace('rev_1', 'rev_2'), 'whsec_a', now))
  t.notOk(verifyDelivery(undefined, body, 'whsec_a', now))
  t.notOk(verifyDelivery('t=abc,v1=zz', body, 'whsec_a', now))
})

t.test('a delivery signed more than 300 seconds before or after now does not verify', async (t) => {
  const now = Date.now()
  t.equal(TOLERANCE_SECONDS, 300)
  t.ok(verifyDelivery(signed('whsec_a', now - 240_000), body, 'whsec_a', now))
  t.notOk(verifyDelivery(signed('whsec_a', now - 360_000), body, 'whsec_a', now))
  t.notOk(verifyDelivery(signed('whsec_a', now + 360_000), body, 'whsec_a', now))
})

const item = (id: string, createdAt: string) => ({ id, createdAt, type: 'review.created' })
const log = [item('evt_12', '2026-11-20T10:00:03Z'), item('evt_11', '2026-11-20T10:00:02Z'), item('evt_9', '2026-11-20T10:00:01Z')]

t.test('the first poll starts nothing, and remembers the newest event', async (t) => {
  t.same(newItems(log, undefined), [])
  t.same(nextSeen(log, undefined), { id: 'evt_12', createdAt: '2026-11-20T10:00:03Z' })
})

t.test('a poll starts the events before the one last seen, newest first, compared by id alone', async (t) => {
  // evt_9 before evt_11 and evt_12: ids are opaque strings, never compared as numbers or text.
  t.same(newItems(log, { id: 'evt_9', createdAt: '2026-11-20T10:00:01Z' }).map((i) => i.id), ['evt_12', 'evt_11'])
  t.same(newItems(log, { id: 'evt_12', createdAt: '2026-11-20T10:00:03Z' }), [])
})

t.test('a poll whose last seen event is not in the answer starts those that happened after it', async (t) => {
  t.same(newItems(log, { id: 'evt_5', createdAt: '2026-11-20T10:00:01Z' }).map((i) => i.id), ['evt_12', 'evt_11'])
})

t.test('after a first poll of an empty log, every event is new', async (t) => {
  const seen = nextSeen([], undefined)
  t.same(seen, { id: '', createdAt: '' })
  t.same(newItems(log, seen).map((i) => i.id), ['evt_12', 'evt_11', 'evt_9'])
  t.same(nextSeen([], seen), seen, 'an empty answer keeps the cursor')
})

t.test('Retry-After is read in seconds or as a date, at least a second and at most a minute', async (t) => {
  t.equal(retryAfterMs('3'), 3000)
  t.equal(retryAfterMs(undefined), 1000)
  t.equal(retryAfterMs('0'), 1000)
  t.equal(retryAfterMs('3600'), 60_000)
  t.equal(retryAfterMs(new Date(Date.parse('2026-01-01T00:00:05Z')).toUTCString(), Date.parse('2026-01-01T00:00:00Z')), 5000)
})

t.test('an API error becomes a NodeApiError with the API\'s message and code', async (t) => {
  const node = { id: 'n', name: 'Evidence Hub', type: 'x', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} }
  const cause = Object.assign(new Error('Request failed with status code 403'), {
    response: { status: 403, headers: {}, data: { message: 'This key lacks reviews:write', code: 'insufficient_scope' } }
  })
  const error = apiError(node, new workflow.NodeApiError(node, cause as never), 2)
  t.ok(error instanceof workflow.NodeApiError)
  t.equal(error.message, 'This key lacks reviews:write')
  t.equal(error.description, 'code: insufficient_scope')
  t.equal(error.httpCode, '403')
  t.equal(error.context.itemIndex, 2)
})
