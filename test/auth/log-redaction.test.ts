import t from 'tap'
import { call, loggedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { redactUrl } from '../../src/app.js'

t.test('a video\'s signed upload URL is logged without its token', async (t) => {
  const { app, lines } = await loggedApp(t)
  const tenant = await makeTenant(app)
  await call(app, {
    method: 'PUT',
    url: '/v1/products',
    key: tenant.key,
    store: tenant.storeId,
    payload: { products: [{ platformProductId: 'p1' }] }
  })
  const grant = (await storefront(app, {
    url: '/v1/reviews/video-upload-url',
    store: tenant.storeId,
    payload: { contentType: 'video/mp4', size: 100 }
  })).json()
  const url = new URL(grant.uploadUrl)
  const token = url.searchParams.get('token')!
  await storefront(app, {
    method: 'PUT',
    url: url.pathname + url.search,
    store: tenant.storeId,
    payload: Buffer.from('not a video'),
    headers: { 'content-type': 'video/mp4' }
  })
  t.ok(lines.some((line) => line.includes(`/v1/uploads/videos/${grant.videoId}?token=[redacted]`)), 'the request is logged')
  t.notOk(lines.some((line) => line.includes(token)), 'without the token')
})

t.test('an unsubscribe link is logged without its token', async (t) => {
  const { app, lines } = await loggedApp(t)
  const token = 'UnsubscribeTokenThatMustNotBeLogged0123456789'
  await app.inject({ method: 'GET', url: `/v1/email/unsubscribe/${token}` })
  await app.inject({ method: 'POST', url: `/v1/email/unsubscribe/${token}?List-Unsubscribe=One-Click` })
  t.ok(lines.some((line) => line.includes('/v1/email/unsubscribe/[redacted]')), 'the requests are logged')
  t.notOk(lines.some((line) => line.includes(token)), 'without the token')
})

t.test('an ID token sent back at logout is masked, the rest of the URL kept', async (t) => {
  t.equal(
    redactUrl('/oauth/session/end?id_token_hint=eyJ.a.b&post_logout_redirect_uri=https%3A%2F%2Fx'),
    '/oauth/session/end?id_token_hint=[redacted]&post_logout_redirect_uri=https%3A%2F%2Fx'
  )
  t.equal(redactUrl('/v1/reviews?status=published'), '/v1/reviews?status=published')
})
