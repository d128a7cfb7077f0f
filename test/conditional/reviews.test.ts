import t from 'tap'
import { call } from '../helper.js'
import { reviewApp } from './setup.js'

const STRONG_ETAG = /^"[A-Za-z0-9_-]{27}"$/

t.test('GET of a review sends a strong ETag', async (t) => {
  const { get } = await reviewApp(t)
  const res = await get()
  t.equal(res.statusCode, 200)
  t.match(res.headers.etag, STRONG_ETAG)
})

t.test('the ETag stays the same while the review does', async (t) => {
  const { get } = await reviewApp(t)
  const first = await get()
  const second = await get()
  t.equal(second.headers.etag, first.headers.etag)
})

t.test('the ETag changes when the review changes', async (t) => {
  const { get, patch } = await reviewApp(t)
  const before = await get()
  t.equal((await patch({ reply: 'Thanks' })).statusCode, 200)
  const after = await get()
  t.not(after.headers.etag, before.headers.etag)
})

t.test('If-None-Match with the current ETag answers 304 with no body, keeping the ETag', async (t) => {
  const { get } = await reviewApp(t)
  const { etag } = (await get()).headers
  const res = await get({ 'if-none-match': String(etag) })
  t.equal(res.statusCode, 304)
  t.equal(res.body, '')
  t.equal(res.headers.etag, etag)
  t.match(res.headers.vary, /authorization/i)
})

t.test('If-None-Match matches weakly, in a list, and with *', async (t) => {
  const { get } = await reviewApp(t)
  const etag = String((await get()).headers.etag)
  for (const header of [`W/${etag}`, `"other", ${etag}`, '*']) {
    const res = await get({ 'if-none-match': header })
    t.equal(res.statusCode, 304, header)
  }
})

t.test('If-None-Match with an old ETag answers 200 with the review', async (t) => {
  const { id, get } = await reviewApp(t)
  const res = await get({ 'if-none-match': '"stale"' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().id, id)
})

t.test('PATCH with a stale If-Match answers 412 precondition_failed and changes nothing', async (t) => {
  const { get, patch } = await reviewApp(t)
  const before = await get()
  const res = await patch({ status: 'published' }, { 'if-match': '"bogus"' })
  t.equal(res.statusCode, 412)
  t.equal(res.json().code, 'precondition_failed')
  const after = await get()
  t.same(after.json(), before.json())
  t.equal(after.headers.etag, before.headers.etag)
})

t.test('PATCH with the current ETag in If-Match applies the change', async (t) => {
  const { get, patch } = await reviewApp(t)
  const { etag } = (await get()).headers
  const res = await patch({ status: 'published' }, { 'if-match': String(etag) })
  t.equal(res.statusCode, 200)
  t.equal((await get()).json().status, 'published')
})

t.test('PATCH with If-Match: * applies the change to an existing review', async (t) => {
  const { patch } = await reviewApp(t)
  const res = await patch({ reply: 'Hi' }, { 'if-match': '*' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().reply.body, 'Hi')
})

t.test('a weak ETag in If-Match never matches', async (t) => {
  const { get, patch } = await reviewApp(t)
  const { etag } = (await get()).headers
  const res = await patch({ reply: 'Hi' }, { 'if-match': `W/${etag}` })
  t.equal(res.statusCode, 412)
})

t.test('If-Match on a missing review answers 404', async (t) => {
  const { app, as } = await reviewApp(t)
  const res = await call(app, {
    method: 'PATCH',
    url: '/v1/reviews/rev_missing',
    ...as,
    headers: { 'if-match': '"x"' },
    payload: { reply: 'Hi' }
  })
  t.equal(res.statusCode, 404)
})

t.test('a malformed If-Match answers 400 invalid_request and changes nothing', async (t) => {
  const { get, patch } = await reviewApp(t)
  const before = (await get()).json()
  for (const header of ['bogus', '"unterminated', 'W/', `"${'a'.repeat(5000)}"`, '"caf\u00e9"', ',']) {
    const res = await patch({ reply: 'Hi' }, { 'if-match': header })
    t.equal(res.statusCode, 400, header.slice(0, 20))
    t.equal(res.json().code, 'invalid_request')
  }
  t.same((await get()).json(), before)
})

t.test('DELETE with a stale If-Match answers 412 and the review remains', async (t) => {
  const { get, remove } = await reviewApp(t)
  const res = await remove({ 'if-match': '"bogus"' })
  t.equal(res.statusCode, 412)
  t.equal((await get()).statusCode, 200)
})

t.test('DELETE with the current ETag in If-Match deletes the review', async (t) => {
  const { get, remove } = await reviewApp(t)
  const { etag } = (await get()).headers
  const res = await remove({ 'if-match': String(etag) })
  t.equal(res.statusCode, 204)
  t.equal((await get()).statusCode, 404)
})

t.test('an ETag taken before a change no longer deletes the review', async (t) => {
  const { get, patch, remove } = await reviewApp(t)
  const { etag } = (await get()).headers
  await patch({ reply: 'Thanks' })
  const res = await remove({ 'if-match': String(etag) })
  t.equal(res.statusCode, 412)
  t.equal((await get()).json().reply.body, 'Thanks')
})
