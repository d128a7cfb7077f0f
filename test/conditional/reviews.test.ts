import t from 'tap'
import { call } from '../helper.js'
import { reviewApp } from './setup.js'

const STRONG_ETAG = /^"[A-Za-z0-9_-]{27}"$/

t.test('GET of a review sends a strong ETag', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const res = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })
  t.equal(res.statusCode, 200)
  t.match(res.headers.etag, STRONG_ETAG)
})

t.test('the ETag stays the same while the review does', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const first = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })
  const second = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })
  t.equal(second.headers.etag, first.headers.etag)
})

t.test('the ETag changes when the review changes', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const before = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })
  t.equal((await call(app, { method: 'PATCH', url: `/v1/reviews/${id}`, ...as, payload: { reply: 'Thanks' } })).statusCode, 200)
  const after = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })
  t.not(after.headers.etag, before.headers.etag)
})

t.test('If-None-Match with the current ETag answers 304 with no body, keeping the ETag', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const { etag } = (await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).headers
  const res = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as, headers: { 'if-none-match': String(etag) } })
  t.equal(res.statusCode, 304)
  t.equal(res.body, '')
  t.equal(res.headers.etag, etag)
  t.match(res.headers.vary, /authorization/i)
})

t.test('If-None-Match matches weakly, in a list, and with *', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const etag = String((await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).headers.etag)
  for (const header of [`W/${etag}`, `"other", ${etag}`, '*']) {
    const res = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as, headers: { 'if-none-match': header } })
    t.equal(res.statusCode, 304, header)
  }
})

t.test('If-None-Match with an old ETag answers 200 with the review', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const res = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as, headers: { 'if-none-match': '"stale"' } })
  t.equal(res.statusCode, 200)
  t.equal(res.json().id, id)
})

t.test('PATCH with a stale If-Match answers 412 precondition_failed and changes nothing', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const before = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })
  const res = await call(app, {
    method: 'PATCH',
    url: `/v1/reviews/${id}`,
    ...as,
    headers: { 'if-match': '"bogus"' },
    payload: { status: 'published' }
  })
  t.equal(res.statusCode, 412)
  t.equal(res.json().code, 'precondition_failed')
  const after = await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })
  t.same(after.json(), before.json())
  t.equal(after.headers.etag, before.headers.etag)
})

t.test('PATCH with the current ETag in If-Match applies the change', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const { etag } = (await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).headers
  const res = await call(app, {
    method: 'PATCH',
    url: `/v1/reviews/${id}`,
    ...as,
    headers: { 'if-match': String(etag) },
    payload: { status: 'published' }
  })
  t.equal(res.statusCode, 200)
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).json().status, 'published')
})

t.test('PATCH with If-Match: * applies the change to an existing review', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const res = await call(app, { method: 'PATCH', url: `/v1/reviews/${id}`, ...as, headers: { 'if-match': '*' }, payload: { reply: 'Hi' } })
  t.equal(res.statusCode, 200)
  t.equal(res.json().reply.body, 'Hi')
})

t.test('a weak ETag in If-Match never matches', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const { etag } = (await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).headers
  const res = await call(app, {
    method: 'PATCH',
    url: `/v1/reviews/${id}`,
    ...as,
    headers: { 'if-match': `W/${etag}` },
    payload: { reply: 'Hi' }
  })
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
  const { app, as, id } = await reviewApp(t)
  const before = (await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).json()
  for (const header of ['bogus', '"unterminated', 'W/', `"${'a'.repeat(5000)}"`, '"caf\u00e9"', ',']) {
    const res = await call(app, {
      method: 'PATCH',
      url: `/v1/reviews/${id}`,
      ...as,
      headers: { 'if-match': header },
      payload: { reply: 'Hi' }
    })
    t.equal(res.statusCode, 400, header.slice(0, 20))
    t.equal(res.json().code, 'invalid_request')
  }
  t.same((await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).json(), before)
})

t.test('DELETE with a stale If-Match answers 412 and the review remains', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const res = await call(app, { method: 'DELETE', url: `/v1/reviews/${id}`, ...as, headers: { 'if-match': '"bogus"' } })
  t.equal(res.statusCode, 412)
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).statusCode, 200)
})

t.test('DELETE with the current ETag in If-Match deletes the review', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const { etag } = (await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).headers
  const res = await call(app, { method: 'DELETE', url: `/v1/reviews/${id}`, ...as, headers: { 'if-match': String(etag) } })
  t.equal(res.statusCode, 204)
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).statusCode, 404)
})

t.test('an ETag taken before a change no longer deletes the review', async (t) => {
  const { app, as, id } = await reviewApp(t)
  const { etag } = (await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).headers
  await call(app, { method: 'PATCH', url: `/v1/reviews/${id}`, ...as, payload: { reply: 'Thanks' } })
  const res = await call(app, { method: 'DELETE', url: `/v1/reviews/${id}`, ...as, headers: { 'if-match': String(etag) } })
  t.equal(res.statusCode, 412)
  t.equal((await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).json().reply.body, 'Thanks')
})
