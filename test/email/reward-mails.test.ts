import t from 'tap'
import { dkimVerify } from 'mailauth'
import { build, call, onMysql, testConfig } from '../helper.js'
import { makeTenant } from '../factories.js'
import { makeCustomers, setSettings } from '../loyalty/support.js'
import { createKnex } from '../../src/db.js'
import { buildServices } from '../../src/services.js'
import { localDns } from './dns.js'
import { smtpReceiver } from './smtp.js'
import { address, api, birthdayCustomer, mailsTo, publishedReview, rewardClock, storeOf, TODAY } from './reward-support.js'

/** Reward mails (issue 17): a loyalty reward or a review incentive mails the customer once, through the one mail path. */
const smtp = await smtpReceiver(t)
const { resolver, publish } = await localDns(t)
const clock = rewardClock()
const app = await build(t, { config: { smtpUrl: smtp.url }, resolver, clock })

t.test('a birthday reward mails the customer once: the template\'s text in HTML and plain text, with one-click unsubscribe headers', async (t) => {
  const tenant = await makeTenant(app)
  const to = address('birthday')
  await birthdayCustomer(app, tenant, to)
  await app.services.birthdays.run()
  t.equal(await app.services.rewardMails.runDue(tenant.storeId), 1)
  const [mail, ...more] = mailsTo(smtp.messages, to)
  t.equal(more.length, 0)
  t.equal(mail.headers.get('subject'), 'Happy birthday from Main store')
  t.match(mail.text, 'Hi Maya,\n\nHappy birthday! We added 200 points to your account. Your balance is now 200 points.')
  t.match(mail.html, '<p style="margin:0 0 16px 0">Hi Maya,</p>')
  t.match(mail.headers.get('list-unsubscribe'), /^<http:\/\/127\.0\.0\.1:3000\/v1\/email\/unsubscribe\/[0-9A-Za-z]{40}>$/)
  t.equal(mail.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click')
  const log = (await api(app, tenant, 'GET', '/v1/email/messages?kind=loyalty_birthday')).json()
  t.match(log.data, [{
    to,
    kind: 'loyalty_birthday',
    status: 'sent',
    reason: 'Handed to the SMTP server',
    subject: 'Happy birthday from Main store'
  }])
  await app.services.birthdays.run()
  t.equal(await app.services.rewardMails.runDue(tenant.storeId), 0, 'another pass finds nothing to send')
  t.equal(mailsTo(smtp.messages, to).length, 1)
})

t.test('a completed referral mails both friends their own points, in the store\'s own referral template', async (t) => {
  const tenant = await makeTenant(app)
  const [maya, sam] = [address('referrer'), address('referee')]
  const ids = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'maya', email: maya, firstName: 'Maya' }, {
    platformCustomerId: 'sam',
    email: sam
  }])
  await setSettings(app, tenant.storeId, { referralReward: { referrerPoints: 500, refereePoints: 250 } })
  await api(app, tenant, 'PUT', '/v1/email/templates/loyalty_referral', {
    subject: '{{points}} points for you',
    body: 'Dear {{customerName}}, your balance is {{balance}}.'
  })
  t.equal((await api(app, tenant, 'POST', '/v1/loyalty/referrals', { referrerCustomerId: ids.maya, refereeEmail: sam })).statusCode, 201)
  await api(app, tenant, 'PUT', '/v1/orders', { orders: [{ platformOrderId: 'first', customerEmail: sam, total: 20 }] })
  t.equal(await app.services.rewardMails.runDue(tenant.storeId), 2)
  const [toMaya] = mailsTo(smtp.messages, maya)
  const [toSam] = mailsTo(smtp.messages, sam)
  t.equal(toMaya.headers.get('subject'), '500 points for you')
  t.match(toMaya.text, 'Dear Maya, your balance is 500.')
  t.equal(toSam.headers.get('subject'), '250 points for you')
  t.match(toSam.text, 'Dear there, your balance is 250.', 'a customer without a name is greeted as "there"')
  const log = (await api(app, tenant, 'GET', '/v1/email/messages?kind=loyalty_referral')).json()
  t.same(log.data.map((m: { to: string, status: string }) => [m.to, m.status]).sort(), [[maya, 'sent'], [sam, 'sent']].sort())
})

t.test('a coupon incentive mails the reviewer the code, named after the product', async (t) => {
  const tenant = await makeTenant(app)
  const to = address('coupon')
  const { id } = (await api(app, tenant, 'POST', '/v1/review-incentives', { type: 'coupon', verifiedOnly: false })).json()
  await api(app, tenant, 'POST', `/v1/review-incentives/${id}/codes`, { codes: ['THANKS-7F3A'] })
  await publishedReview(app, tenant, to)
  t.equal(await app.services.rewardMails.runDue(tenant.storeId), 1)
  const [mail] = mailsTo(smtp.messages, to)
  t.equal(mail.headers.get('subject'), 'Thank you for your review')
  t.match(
    mail.text,
    'Thank you for reviewing Linen shirt at Main store. As a thank-you, here is your reward:\n\nCoupon code: THANKS-7F3A\n'
  )
  t.match(mail.html, 'Coupon code: <strong style="font-family:monospace;font-size:18px">THANKS-7F3A</strong>')
  const log = (await api(app, tenant, 'GET', '/v1/email/messages?kind=review_incentive')).json()
  t.match(log.data, [{ to: `…${to.slice(-4)}`, status: 'sent' }], 'the reviewer\'s address shown as reviews show it')
  t.notOk(JSON.stringify(log).includes(to.split('@')[0]))
})

t.test('a points incentive mails the points; a review whose pool was empty gets no mail', async (t) => {
  const tenant = await makeTenant(app)
  const [rewarded, unlucky] = [address('points'), address('empty')]
  await makeCustomers(app, tenant.storeId, [{ platformCustomerId: 'ann', email: rewarded }])
  await api(app, tenant, 'POST', '/v1/review-incentives', { type: 'points', points: 40, verifiedOnly: false })
  await publishedReview(app, tenant, rewarded)
  const other = await makeTenant(app)
  await api(app, other, 'POST', '/v1/review-incentives', { type: 'coupon', verifiedOnly: false })
  await publishedReview(app, other, unlucky)
  await app.services.rewardMails.runDue(tenant.storeId)
  await app.services.rewardMails.runDue(other.storeId)
  const [mail] = mailsTo(smtp.messages, rewarded)
  t.match(mail.text, 'here is your reward:\n\n40 points, added to your account\n')
  t.equal(mailsTo(smtp.messages, unlucky).length, 0)
  t.equal((await api(app, other, 'GET', '/v1/email/messages')).json().meta.total, 0)
})

t.test('a suppressed customer gets a suppressed row in the log and no mail', async (t) => {
  const tenant = await makeTenant(app)
  const to = address('suppressed')
  await api(app, tenant, 'POST', '/v1/email-suppressions', { email: to.toUpperCase(), reason: 'manual' })
  await birthdayCustomer(app, tenant, to)
  await app.services.birthdays.run()
  t.equal(await app.services.rewardMails.runDue(tenant.storeId), 1)
  t.equal(mailsTo(smtp.messages, to).length, 0)
  const log = (await api(app, tenant, 'GET', '/v1/email/messages')).json()
  t.match(log.data, [{
    to,
    kind: 'loyalty_birthday',
    status: 'suppressed',
    reason: /^Not sent: the address is on the suppression list \(manual since 2026-08-17T/
  }])
  t.equal(log.meta.total, 1)
})

t.test('grants run concurrently on two workers, and sends on both, mail each reward once', async (t) => {
  const tenant = await makeTenant(app)
  const emails = Array.from({ length: 6 }, (_, i) => address(`crowd${i}`))
  await setSettings(app, tenant.storeId, { birthdayReward: { points: 10 } })
  await makeCustomers(app, tenant.storeId, emails.map((email) => ({ platformCustomerId: email, email, birthday: TODAY })))
  // A second worker process: its own connection pool, services and SMTP connection over the same database.
  const otherDb = onMysql ? createKnex(testConfig()) : app.db
  const other = buildServices({ db: otherDb, clock, config: testConfig({ smtpUrl: smtp.url }), redis: null })
  t.teardown(async () => {
    await other.close()
    if (otherDb !== app.db) await otherDb.destroy()
  })
  await Promise.all([app.services.birthdays.run(), other.birthdays.run(), app.services.birthdays.run(), other.birthdays.run()])
  await Promise.all([
    app.services.rewardMails.runDue(tenant.storeId),
    other.rewardMails.runDue(tenant.storeId),
    app.services.rewardMails.runDue(tenant.storeId)
  ])
  t.same(emails.map((email) => mailsTo(smtp.messages, email).length), [1, 1, 1, 1, 1, 1])
  t.equal((await api(app, tenant, 'GET', '/v1/email/messages?kind=loyalty_birthday')).json().meta.total, 6)
})

t.test('the same reward told twice is queued once, by the queue\'s unique key', async (t) => {
  const tenant = await makeTenant(app)
  const to = address('twice')
  await birthdayCustomer(app, tenant, to)
  await app.services.birthdays.run()
  const entry = await app.db('loyalty_ledger').where({ store_env_id: tenant.storeId, kind: 'birthday' }).first('id')
  const store = await storeOf(app, tenant)
  const reward = { kind: 'birthday' as const, entryId: Number(entry.id), email: to, name: 'Maya', points: 200, balance: 200 }
  await Promise.all([1, 2].map(() => app.db.transaction((trx) => app.services.rewardMails.onLoyaltyReward(trx, store, reward))))
  t.equal((await app.db('reward_mails').where({ store_env_id: tenant.storeId })).length, 1)
  await app.services.rewardMails.runDue(tenant.storeId)
  t.equal(mailsTo(smtp.messages, to).length, 1)
})

t.test('names and codes cannot inject markup: they are escaped in the HTML part', async (t) => {
  const tenant = await makeTenant(app)
  const [birthday, coupon] = [address('evil-name'), address('evil-code')]
  await birthdayCustomer(app, tenant, birthday, '<img src=x onerror=alert(1)>{{storeName}}')
  await app.services.birthdays.run()
  const { id } = (await api(app, tenant, 'POST', '/v1/review-incentives', { type: 'coupon', verifiedOnly: false })).json()
  await api(app, tenant, 'POST', `/v1/review-incentives/${id}/codes`, { codes: ['<script>x</script>'] })
  await publishedReview(app, tenant, coupon, '<b>Bold</b> shirt')
  await app.services.rewardMails.runDue(tenant.storeId)
  const [named] = mailsTo(smtp.messages, birthday)
  t.match(named.html, 'Hi &lt;img src=x onerror=alert(1)&gt;{{storeName}},')
  t.notMatch(named.html, '<img src=x')
  const [coded] = mailsTo(smtp.messages, coupon)
  t.match(coded.html, '&lt;b&gt;Bold&lt;/b&gt; shirt')
  t.match(coded.html, '>&lt;script&gt;x&lt;/script&gt;</strong>')
  t.notMatch(coded.html, '<script>')
  t.match(coded.text, 'Coupon code: <script>x</script>', 'the plain-text part shows the code as it is')
})

t.test('an erased customer\'s waiting mail is not sent, and the queue forgets the address', async (t) => {
  const tenant = await makeTenant(app)
  const to = address('erased')
  const customerId = await birthdayCustomer(app, tenant, to)
  await app.services.birthdays.run()
  t.equal((await api(app, tenant, 'DELETE', `/v1/customers/${customerId}`)).statusCode, 204)
  await app.services.rewardMails.runDue(tenant.storeId)
  t.equal(mailsTo(smtp.messages, to).length, 0)
  t.match(await app.db('reward_mails').where({ store_env_id: tenant.storeId }), [{
    to: '[erased]',
    values: '{}',
    state: 'skipped',
    reason: 'Not sent: the customer was erased'
  }])
})

t.test('a store with a verified sending domain DKIM-signs its reward mails', async (t) => {
  const tenant = await makeTenant(app)
  const domain = `reward${Date.now()}.shop.example`
  const { records } = (await api(app, tenant, 'PUT', '/v1/sending-domain', { domain })).json()
  publish(records)
  t.equal((await api(app, tenant, 'POST', '/v1/sending-domain/verify')).json().status, 'verified')
  const to = address('signed')
  await birthdayCustomer(app, tenant, to)
  await app.services.birthdays.run()
  await app.services.rewardMails.runDue(tenant.storeId)
  const raw = smtp.messages.find((m) => m.to.includes(to))!.raw
  const result = await dkimVerify(raw, { resolver: (name, type) => resolver.resolve(name, type) as Promise<string[][]> })
  t.match(result.results, [{ signingDomain: domain, status: { result: 'pass' } }])
})

t.test('one store\'s reward mails are not in another store\'s log', async (t) => {
  const [a, b] = [await makeTenant(app), await makeTenant(app)]
  const to = address('isolated')
  await birthdayCustomer(app, a, to)
  await app.services.birthdays.run()
  t.equal(await app.services.rewardMails.runDue(b.storeId), 0, 'a send pass for one store leaves another\'s mail alone')
  await app.services.rewardMails.runDue(a.storeId)
  t.equal((await api(app, a, 'GET', '/v1/email/messages')).json().meta.total, 1)
  t.equal((await call(app, { method: 'GET', url: '/v1/email/messages', key: b.key, store: b.storeId })).json().meta.total, 0)
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/email/messages', key: b.key, store: a.storeId })).statusCode,
    404,
    'nor can its key read the other store'
  )
})
