import t from 'tap'
import { build, call, sharedApp } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { smtpReceiver } from './smtp.js'
import { address, api, birthdayCustomer, mailsTo, publishedReview, rewardClock } from './reward-support.js'

/** GET/PUT /v1/email/settings: whether a store sends reward mails (issue 17). */
const smtp = await smtpReceiver(t)
const app = await build(t, { config: { smtpUrl: smtp.url }, clock: rewardClock() })

t.test('reward mails are on until the store turns them off, and a change is an event', async (t) => {
  const tenant = await makeTenant(app)
  t.same((await api(app, tenant, 'GET', '/v1/email/settings')).json(), {
    loyaltyRewardMails: true,
    reviewIncentiveMails: true,
    updatedAt: null
  })
  const put = await api(app, tenant, 'PUT', '/v1/email/settings', { loyaltyRewardMails: false, reviewIncentiveMails: true })
  t.equal(put.statusCode, 200)
  t.match(put.json(), { loyaltyRewardMails: false, reviewIncentiveMails: true, updatedAt: '2026-08-17T09:00:00.000Z' })
  t.match((await api(app, tenant, 'GET', '/v1/email/settings')).json(), { loyaltyRewardMails: false, reviewIncentiveMails: true })
  const event = await app.db('events').where({ store_env_id: tenant.storeId, type: 'email_settings.updated' }).first()
  t.match(JSON.parse(event.data), { loyaltyRewardMails: false, reviewIncentiveMails: true })
})

t.test('with loyalty reward mails off a birthday reward is granted but mails nothing', async (t) => {
  const tenant = await makeTenant(app)
  await api(app, tenant, 'PUT', '/v1/email/settings', { loyaltyRewardMails: false, reviewIncentiveMails: true })
  const to = address('off')
  await birthdayCustomer(app, tenant, to)
  // Any instance's pass may be the one that grants it (passes cover every store of the shared test database).
  await app.services.birthdays.run()
  t.ok(await app.db('loyalty_ledger').where({ store_env_id: tenant.storeId, kind: 'birthday' }).first('id'), 'the reward was granted')
  t.equal(await app.services.rewardMails.runDue(tenant.storeId), 0)
  t.equal(mailsTo(smtp.messages, to).length, 0)
  t.equal((await api(app, tenant, 'GET', '/v1/email/messages')).json().meta.total, 0)
})

t.test('with incentive mails off a coupon is given but not mailed', async (t) => {
  const tenant = await makeTenant(app)
  await api(app, tenant, 'PUT', '/v1/email/settings', { loyaltyRewardMails: true, reviewIncentiveMails: false })
  const { id } = (await api(app, tenant, 'POST', '/v1/review-incentives', { type: 'coupon', verifiedOnly: false })).json()
  await api(app, tenant, 'POST', `/v1/review-incentives/${id}/codes`, { codes: ['OFF-1'] })
  const to = address('incentive-off')
  await publishedReview(app, tenant, to)
  t.equal(await app.services.rewardMails.runDue(tenant.storeId), 0)
  t.equal(mailsTo(smtp.messages, to).length, 0)
  t.match(
    await app.db('review_incentive_codes').where({ incentive_id: id }).first('review_id'),
    { review_id: /^rev_/ },
    'the code is still given'
  )
})

t.test('a mail queued before its kind is turned off is not sent, and the queue says why', async (t) => {
  const tenant = await makeTenant(app)
  const to = address('late-off')
  await birthdayCustomer(app, tenant, to)
  await app.services.birthdays.run()
  await api(app, tenant, 'PUT', '/v1/email/settings', { loyaltyRewardMails: false, reviewIncentiveMails: true })
  t.equal(await app.services.rewardMails.runDue(tenant.storeId), 1)
  t.equal(mailsTo(smtp.messages, to).length, 0)
  t.match(await app.db('reward_mails').where({ store_env_id: tenant.storeId }), [{
    state: 'skipped',
    reason: 'Not sent: the store turned these mails off before they went out',
    message_id: null
  }])
})

t.test('one store\'s settings do not change another\'s', async (t) => {
  const [a, b] = [await makeTenant(app), await makeTenant(app)]
  await api(app, a, 'PUT', '/v1/email/settings', { loyaltyRewardMails: false, reviewIncentiveMails: false })
  t.match((await api(app, b, 'GET', '/v1/email/settings')).json(), {
    loyaltyRewardMails: true,
    reviewIncentiveMails: true,
    updatedAt: null
  })
  t.equal(
    (await call(app, {
      method: 'PUT',
      url: '/v1/email/settings',
      key: b.key,
      store: a.storeId,
      payload: { loyaltyRewardMails: true, reviewIncentiveMails: true }
    })).statusCode,
    404
  )
  t.match((await api(app, a, 'GET', '/v1/email/settings')).json(), { loyaltyRewardMails: false })
})

t.test('settings at the edges of the schema are a 400, and a viewer may read but not change them', async (t) => {
  const tenant = await makeTenant(app)
  const bad = [
    {},
    { loyaltyRewardMails: true },
    { loyaltyRewardMails: 'yes', reviewIncentiveMails: true },
    { loyaltyRewardMails: null, reviewIncentiveMails: true },
    { loyaltyRewardMails: 1, reviewIncentiveMails: 0 },
    { loyaltyRewardMails: true, reviewIncentiveMails: true, other: '😀'.repeat(1000) }
  ]
  for (const payload of bad) {
    const res = await api(app, tenant, 'PUT', '/v1/email/settings', payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 60))
    t.equal(res.json().code, 'invalid_request')
  }
  const viewer = await makeKey(app, tenant, 'viewer')
  t.equal((await call(app, { method: 'GET', url: '/v1/email/settings', key: viewer.secret, store: tenant.storeId })).statusCode, 200)
  const refused = await call(app, {
    method: 'PUT',
    url: '/v1/email/settings',
    key: viewer.secret,
    store: tenant.storeId,
    payload: { loyaltyRewardMails: false, reviewIncentiveMails: false }
  })
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'role_read_only')
  t.same((await api(app, tenant, 'GET', '/v1/email/settings')).json().updatedAt, null)
})

t.test('without an SMTP server a reward mail waits in the local outbox, logged as queued with its unsubscribe headers', async (t) => {
  const local = await sharedApp()
  const tenant = await makeTenant(local)
  const { id } = (await api(local, tenant, 'POST', '/v1/review-incentives', { type: 'coupon', verifiedOnly: false })).json()
  await api(local, tenant, 'POST', `/v1/review-incentives/${id}/codes`, { codes: ['LOCAL-1'] })
  const to = address('outbox')
  await publishedReview(local, tenant, to)
  t.equal(await local.services.rewardMails.runDue(tenant.storeId), 1)
  t.match((await api(local, tenant, 'GET', '/v1/email/messages')).json().data, [{
    to: `…${to.slice(-4)}`,
    kind: 'review_incentive',
    status: 'queued',
    reason: 'Kept in the local outbox: no SMTP server is configured (SMTP_URL)'
  }])
  const kept = await local.db('mail_outbox').where({ store_env_id: tenant.storeId, to }).first()
  t.match(kept.text, 'Coupon code: LOCAL-1')
  t.match(JSON.parse(kept.headers), { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' })
})
