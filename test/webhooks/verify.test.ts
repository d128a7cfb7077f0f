import t from 'tap'
import { createHmac } from 'node:crypto'
import { verifySignature } from '../../src/modules/delivery/verify.js'

const secret = 'whsec_testsecrettestsecrettestsecret12'
const body = '{"id":"evt_1","type":"review.created","data":{}}'
const now = Date.parse('2026-11-23T12:00:00Z')
const ts = Math.floor(now / 1000)

/** Computed here with node:crypto, independently of the code under test. */
function header (t: number, payload = body, key = secret) {
  return `t=${t},v1=${createHmac('sha256', key).update(`${t}.${payload}`).digest('hex')}`
}

t.test('a correctly signed delivery verifies', async (t) => {
  t.same(verifySignature(body, header(ts), secret, { now }), { ok: true, timestamp: ts })
  t.same(verifySignature(Buffer.from(body), header(ts), secret, { now }), { ok: true, timestamp: ts }, 'raw bytes too')
})

t.test('timestamps exactly 300 s away verify; 301 s away, past or future, do not', async (t) => {
  t.equal(verifySignature(body, header(ts - 300), secret, { now }).ok, true)
  t.equal(verifySignature(body, header(ts + 300), secret, { now }).ok, true)
  t.same(verifySignature(body, header(ts - 301), secret, { now }), { ok: false, reason: 'timestamp_out_of_tolerance' })
  t.same(verifySignature(body, header(ts + 301), secret, { now }), { ok: false, reason: 'timestamp_out_of_tolerance' })
  t.equal(verifySignature(body, header(ts - 500), secret, { now, toleranceSeconds: 600 }).ok, true, 'tolerance is configurable')
})

t.test('a changed body, another secret or a replayed timestamp fails', async (t) => {
  t.same(verifySignature(body + ' ', header(ts), secret, { now }), { ok: false, reason: 'signature_mismatch' })
  t.same(verifySignature(body, header(ts, body, 'whsec_other'), secret, { now }), { ok: false, reason: 'signature_mismatch' })
  const signed = header(ts)
  const replayed = signed.replace(`t=${ts}`, `t=${ts + 10}`)
  t.same(verifySignature(body, replayed, secret, { now }), { ok: false, reason: 'signature_mismatch' }, 'the timestamp is signed')
})

t.test('unknown fields in the header are ignored and any matching v1 is accepted', async (t) => {
  const good = header(ts)
  t.equal(verifySignature(body, `${good},v0=abc,scheme=future`, secret, { now }).ok, true)
  t.equal(
    verifySignature(body, `t=${ts},v1=${'0'.repeat(64)},${good.split(',')[1]}`, secret, { now }).ok,
    true,
    'several v1 during a secret roll'
  )
})

t.test('a missing or malformed header is refused', async (t) => {
  t.same(verifySignature(body, undefined, secret, { now }), { ok: false, reason: 'missing_header' })
  t.same(verifySignature(body, 'garbage', secret, { now }), { ok: false, reason: 'malformed_header' })
  t.same(verifySignature(body, `t=${ts}`, secret, { now }), { ok: false, reason: 'malformed_header' })
  t.same(verifySignature(body, `v1=${'a'.repeat(64)}`, secret, { now }), { ok: false, reason: 'malformed_header' })
})
