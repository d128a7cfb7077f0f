import t from 'tap'
import { build, call } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { localDns } from '../email/dns.js'
import { smtpReceiver } from '../email/smtp.js'
import { appendEvent, receiver, testWorker } from '../webhooks/support.js'
import { signedInMember, signedInOwner } from './agent.js'

/** The admin's email settings pages (issue 17): templates, sequences, the sending domain and the providers. */
const smtp = await smtpReceiver(t)
const dns = await localDns(t)
const app = await build(t, { config: { smtpUrl: smtp.url }, resolver: dns.resolver })
const api = (tenant: Tenant, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
  call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })

let n = 0
const unique = (what: string) => `${what}${++n}${Date.now()}`

/** A member whose role is viewer: people are invited as editors at least, but a partner's grant can be read-only. */
async function signedInViewer (tenant: Tenant) {
  const { agent, member } = await signedInMember(app, tenant, 'editor')
  await app.db('memberships').where({ org_id: tenant.orgId, person_id: member.id }).update({ role: 'viewer' })
  return agent
}

// Templates ---------------------------------------------------------------------------------------------------------

t.test('the templates page lists every mail with its placeholders and whether it was edited', async (t) => {
  const { agent } = await signedInOwner(app)
  const res = await agent.get('/admin/email/templates')
  t.equal(res.statusCode, 200)
  for (const label of ['Review request', 'Review reminder', 'Loyalty birthday', 'Loyalty referral', 'Review incentive']) {
    t.match(res.body, label)
  }
  t.match(res.body, '{{productList}}')
  t.match(res.body, 'Default')
  t.match(res.body, 'href="/admin/email/templates/review_request"')
})

t.test('a template page shows the text, the allowed placeholders and the test and reset forms', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await api(tenant, 'PUT', '/v1/email/templates/loyalty_birthday', { subject: 'Birthday {{points}}', body: 'Hi' })
  const res = await agent.get('/admin/email/templates/loyalty_birthday')
  t.equal(res.statusCode, 200)
  t.match(res.body, 'value="Birthday {{points}}"')
  t.match(res.body, '<code>{{points}}</code>')
  t.notMatch(res.body, '<code>{{orderId}}</code>', 'only the placeholders of this mail')
  t.match(res.body, 'action="/admin/email/templates/loyalty_birthday/test"')
  t.match(res.body, 'Reset to the default')
  t.equal((await agent.get('/admin/email/templates/newsletter')).statusCode, 404)
})

t.test('saving a template changes the template the API serves', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/templates/review_request')
  const res = await agent.post('/admin/email/templates/review_request', {
    subject: 'Your order {{orderId}}',
    body: 'Hi {{customerName}},\r\n\r\nTell us:\r\n{{productList}}'
  })
  t.equal(res.statusCode, 303)
  t.match((await agent.get(res.headers.location as string)).body, 'The template is saved.')
  t.match((await api(tenant, 'GET', '/v1/email/templates/review_request')).json(), {
    custom: true,
    subject: 'Your order {{orderId}}',
    body: 'Hi {{customerName}},\n\nTell us:\n{{productList}}'
  })
})

t.test('a template with a placeholder the mail does not know is refused on the page and nothing changes', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/templates/loyalty_birthday')
  const res = await agent.post('/admin/email/templates/loyalty_birthday', {
    subject: 'Hi {{customerName}}',
    body: 'Your order {{orderId}} {{constructor.constructor}}'
  })
  t.equal(res.statusCode, 400)
  t.match(res.body, /role="alert">body: unknown placeholder orderId/)
  t.match(res.body, 'Your order {{orderId}} {{constructor.constructor}}</textarea>', 'what was typed is kept')
  t.match((await api(tenant, 'GET', '/v1/email/templates/loyalty_birthday')).json(), { custom: false })
})

t.test('a template the API schema refuses (an empty subject) is refused on the page with the field named', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/templates/review_reminder')
  const res = await agent.post('/admin/email/templates/review_reminder', { subject: '  ', body: 'Hello' })
  t.equal(res.statusCode, 400)
  t.match(res.body, /role="alert">Subject: /)
  t.match((await api(tenant, 'GET', '/v1/email/templates/review_reminder')).json(), { custom: false })
})

t.test('a test mail goes out through SMTP with sample values and is in the message log', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  const to = `${unique('test')}@example.test`
  await agent.get('/admin/email/templates/review_request')
  const res = await agent.post('/admin/email/templates/review_request/test', { to })
  t.equal(res.statusCode, 303)
  t.match((await agent.get(res.headers.location as string)).body, `A test mail is on its way to ${to}.`)
  const mail = smtp.messages.find((m) => m.to.includes(to))
  t.ok(mail, 'the SMTP server got it')
  t.match(mail!.raw, 'How was your order from Main store?')
  t.match((await api(tenant, 'GET', '/v1/email/messages?kind=test')).json().data, [{ to, kind: 'test' }])
})

t.test('a test mail to a suppressed address is not sent and the page says why', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  const to = `${unique('gone')}@example.test`
  await api(tenant, 'POST', '/v1/email-suppressions', { email: to, reason: 'bounced' })
  await agent.get('/admin/email/templates/review_request')
  const res = await agent.post('/admin/email/templates/review_request/test', { to })
  t.match((await agent.get(res.headers.location as string)).body, `The test mail to ${to} was not sent`)
  t.notOk(smtp.messages.some((m) => m.to.includes(to)))
})

t.test('a test mail to something that is not an address is refused on the page', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/templates/review_request')
  const res = await agent.post('/admin/email/templates/review_request/test', { to: 'not-an-address' })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Enter a valid email address')
  t.equal((await api(tenant, 'GET', '/v1/email/messages?kind=test')).json().data.length, 0)
})

t.test('resetting a template brings back the default', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await api(tenant, 'PUT', '/v1/email/templates/review_incentive', { subject: 'Custom', body: 'Custom {{reward}}' })
  await agent.get('/admin/email/templates/review_incentive')
  const res = await agent.post('/admin/email/templates/review_incentive/reset')
  t.equal(res.statusCode, 303)
  t.match((await agent.get(res.headers.location as string)).body, 'The template is back to the default.')
  t.match((await api(tenant, 'GET', '/v1/email/templates/review_incentive')).json(), {
    custom: false,
    subject: 'Thank you for your review'
  })
})

// Sequences ---------------------------------------------------------------------------------------------------------

const threeSteps = {
  name: 'Three touches',
  active: 'on',
  delay1: '72',
  template1: 'review_request',
  delay2: '96',
  template2: 'review_reminder',
  stop2: 'on',
  delay3: '168',
  template3: 'review_reminder',
  stop3: 'on'
}

t.test('a three-step sequence made on the page is the store\'s active sequence', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  t.equal((await agent.get('/admin/email/sequences')).statusCode, 200)
  const form = await agent.get('/admin/email/sequences/new')
  t.match(form.body, 'name="delay5"', 'five step rows, the most a sequence has')
  const res = await agent.post('/admin/email/sequences', threeSteps)
  t.equal(res.statusCode, 303)
  const list = await agent.get('/admin/email/sequences')
  t.match(list.body, 'The sequence “Three touches” is saved and active.')
  t.match((await api(tenant, 'GET', '/v1/email-sequences')).json().data, [{
    name: 'Three touches',
    active: true,
    steps: [{ delayHours: 72, templateKey: 'review_request', stopWhen: null }, {
      delayHours: 96,
      templateKey: 'review_reminder',
      stopWhen: 'reviewed'
    }, { delayHours: 168, templateKey: 'review_reminder', stopWhen: 'reviewed' }]
  }])
})

t.test('editing a sequence replaces its steps, and its page shows them', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  const seq =
    (await api(tenant, 'POST', '/v1/email-sequences', { name: 'Old', steps: [{ delayHours: 24, templateKey: 'review_request' }] })).json()
  const page = await agent.get(`/admin/email/sequences/${seq.id}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, 'name="delay1" aria-label="Step 1 delay in hours" value="24"')
  const res = await agent.post(`/admin/email/sequences/${seq.id}`, {
    name: 'New',
    delay1: '48',
    template1: 'review_request',
    delay2: '24',
    template2: 'review_reminder'
  })
  t.equal(res.statusCode, 303)
  t.match((await api(tenant, 'GET', `/v1/email-sequences/${seq.id}`)).json(), {
    name: 'New',
    active: false,
    steps: [{ delayHours: 48 }, { delayHours: 24, templateKey: 'review_reminder', stopWhen: null }]
  })
})

t.test('a delay beyond a year is refused on the page, naming the step, and nothing is stored', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/sequences/new')
  const res = await agent.post('/admin/email/sequences', { ...threeSteps, delay2: '9000' })
  t.equal(res.statusCode, 400)
  t.match(res.body, /role="alert">Step 2 delay \(hours\): /)
  t.match(res.body, 'value="9000"', 'what was typed is kept')
  t.equal((await api(tenant, 'GET', '/v1/email-sequences')).json().data.length, 0)
})

t.test('a delay that is not a whole number is refused on the page', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/sequences/new')
  const res = await agent.post('/admin/email/sequences', { name: 'Typo', delay1: '3 days', template1: 'review_request' })
  t.equal(res.statusCode, 400)
  t.match(res.body, /Step 1 delay \(hours\): expected integer/)
  t.equal((await api(tenant, 'GET', '/v1/email-sequences')).json().data.length, 0)
})

t.test('a sequence without any step is refused on the page', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/sequences/new')
  const res = await agent.post('/admin/email/sequences', { name: 'Empty' })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Give at least one step a delay')
  t.equal((await api(tenant, 'GET', '/v1/email-sequences')).json().data.length, 0)
})

t.test('a second active sequence is refused on the page with the API\'s conflict', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await api(tenant, 'POST', '/v1/email-sequences', {
    name: 'First',
    active: true,
    steps: [{ delayHours: 24, templateKey: 'review_request' }]
  })
  await agent.get('/admin/email/sequences/new')
  const res = await agent.post('/admin/email/sequences', { ...threeSteps, name: 'Second' })
  t.equal(res.statusCode, 409)
  t.match(res.body, 'Another sequence of this store is active')
  t.same((await api(tenant, 'GET', '/v1/email-sequences')).json().data.map((s: { name: string }) => s.name), ['First'])
})

t.test('deleting a sequence removes it', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  const seq =
    (await api(tenant, 'POST', '/v1/email-sequences', { name: 'Doomed', steps: [{ delayHours: 24, templateKey: 'review_request' }] }))
      .json()
  await agent.get('/admin/email/sequences')
  t.equal((await agent.post(`/admin/email/sequences/${seq.id}/delete`)).statusCode, 303)
  t.equal((await api(tenant, 'GET', `/v1/email-sequences/${seq.id}`)).statusCode, 404)
})

// Sending domain ----------------------------------------------------------------------------------------------------

t.test('a sending domain added on the page lists its DNS records, each pending, and a check verifies the published ones', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  const domain = `${unique('m')}.shop.example`
  await agent.get('/admin/email')
  t.equal((await agent.post('/admin/email/domain', { domain })).statusCode, 303)
  const page = await agent.get('/admin/email')
  t.match(page.body, `<code>_dmarc.${domain}</code>`)
  t.equal(
    page.body.match(/<td data-label="Status"><span class="badge disabled">Pending<\/span>/g)?.length,
    4,
    'every record has its own status'
  )
  dns.publish((await api(tenant, 'GET', '/v1/sending-domain')).json().records)
  t.equal((await agent.post('/admin/email/domain/verify')).statusCode, 303)
  const checked = await agent.get('/admin/email')
  t.match(checked.body, 'The records were checked.')
  t.equal(checked.body.match(/<span class="badge active">Verified<\/span>/g)?.length, 5, 'the domain and its four records')
  t.match((await api(tenant, 'GET', '/v1/sending-domain')).json(), { status: 'verified' })
})

t.test('a sending domain that is not a domain name is refused on the page', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email')
  const res = await agent.post('/admin/email/domain', { domain: 'not a domain' })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'give a domain name')
  t.equal((await api(tenant, 'GET', '/v1/sending-domain')).statusCode, 404)
})

t.test('an editor sees the sending domain but cannot change it, as in the API', async (t) => {
  const tenant = await makeTenant(app)
  const { agent } = await signedInMember(app, tenant, 'editor')
  const page = await agent.get('/admin/email')
  t.equal(page.statusCode, 200)
  t.notMatch(page.body, 'action="/admin/email/domain"')
  t.equal((await agent.post('/admin/email/domain', { domain: `${unique('e')}.shop.example` })).statusCode, 403)
  t.equal((await api(tenant, 'GET', '/v1/sending-domain')).statusCode, 404)
})

// Providers ---------------------------------------------------------------------------------------------------------

t.test('the providers page lists klaviyo, mailchimp and webhook, with the key shown only by its last four characters', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await api(tenant, 'PUT', '/v1/email/providers/klaviyo', { apiKey: 'pk_secret_value_4321' })
  const res = await agent.get('/admin/email/providers')
  t.equal(res.statusCode, 200)
  for (const name of ['klaviyo', 'mailchimp', 'webhook']) t.match(res.body, `href="/admin/email/providers/${name}"`)
  t.match(res.body, '…4321')
  t.match(res.body, 'Not set up')
  t.notMatch(res.body, 'pk_secret_value')
})

t.test('a provider set up on the page is configured in the API, and its page never shows the key back', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/providers/klaviyo')
  const res = await agent.post('/admin/email/providers/klaviyo', {
    apiKey: 'pk_live_abcdef_9876',
    events: 'loyalty.referral_reward',
    enabled: 'on'
  })
  t.equal(res.statusCode, 303)
  const page = await agent.get('/admin/email/providers/klaviyo')
  t.match(page.body, 'klaviyo is saved.')
  t.match(page.body, 'Stored, ends in 9876')
  t.notMatch(page.body, 'pk_live_abcdef')
  t.match((await api(tenant, 'GET', '/v1/email/providers/klaviyo')).json(), {
    apiKeyLast4: '9876',
    baseUrl: 'https://a.klaviyo.com',
    events: ['loyalty.referral_reward'],
    enabled: true
  })
})

t.test('saving a provider without a key keeps the stored key and changes the rest', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await api(tenant, 'PUT', '/v1/email/providers/mailchimp', { apiKey: 'key-us21', listId: 'list1' })
  await agent.get('/admin/email/providers/mailchimp')
  const res = await agent.post('/admin/email/providers/mailchimp', { apiKey: '', listId: 'list2', events: 'loyalty.referral_reward' })
  t.equal(res.statusCode, 303)
  t.match((await api(tenant, 'GET', '/v1/email/providers/mailchimp')).json(), {
    apiKeyLast4: 'us21',
    listId: 'list2',
    events: ['loyalty.referral_reward'],
    enabled: false,
    baseUrl: 'https://us21.api.mailchimp.com'
  })
})

t.test('a webhook provider\'s signing secret is shown once after it is set up', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  const hook = await receiver(t)
  await agent.get('/admin/email/providers/webhook')
  const res = await agent.post('/admin/email/providers/webhook', {
    baseUrl: `${hook.url}/email`,
    events: 'loyalty.birthday_reward',
    enabled: 'on'
  })
  const shown = await agent.get(res.headers.location as string)
  t.match(shown.body, /whsec_[A-Za-z0-9]{32}/)
  t.notMatch((await agent.get('/admin/email/providers/webhook')).body, /whsec_/)
  t.match((await api(tenant, 'GET', '/v1/email/providers/webhook')).json(), {
    baseUrl: `${hook.url}/email`,
    events: ['loyalty.birthday_reward']
  })
})

t.test('a provider the service refuses is shown with its message and the key typed is not echoed', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/providers/mailchimp')
  const res = await agent.post('/admin/email/providers/mailchimp', { apiKey: 'typed-secret-us21', events: 'loyalty.birthday_reward' })
  t.equal(res.statusCode, 400)
  t.match(res.body, /role="alert">listId: Mailchimp needs the audience/)
  t.notMatch(res.body, 'typed-secret')
  t.equal((await api(tenant, 'GET', '/v1/email/providers/mailchimp')).statusCode, 404)
})

t.test('a provider without events is refused on the page', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/email/providers/klaviyo')
  const res = await agent.post('/admin/email/providers/klaviyo', { apiKey: 'pk_x' })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Choose the events to push')
  t.equal((await api(tenant, 'GET', '/v1/email/providers/klaviyo')).statusCode, 404)
})

t.test('removing a provider stops it in the API', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  await api(tenant, 'PUT', '/v1/email/providers/klaviyo', { apiKey: 'pk_remove_me' })
  await agent.get('/admin/email/providers/klaviyo')
  const res = await agent.post('/admin/email/providers/klaviyo/remove')
  t.equal(res.statusCode, 303)
  t.match((await agent.get(res.headers.location as string)).body, 'klaviyo is removed')
  t.equal((await api(tenant, 'GET', '/v1/email/providers/klaviyo')).statusCode, 404)
})

t.test('a provider\'s page shows its delivery log', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  const hook = await receiver(t)
  await api(tenant, 'PUT', '/v1/email/providers/webhook', { baseUrl: hook.url })
  const event = await appendEvent(app, tenant, 'loyalty.birthday_reward', { customer: { email: 'ann@example.test' }, points: 10 })
  await testWorker(t, app, [tenant.storeId]).runOnce()
  const page = await agent.get('/admin/email/providers/webhook')
  t.match(page.body, 'Delivery log')
  t.match(page.body, `<code>${String((event as { id?: unknown }).id ?? 'evt_')}`)
  t.match(page.body, '<span class="badge succeeded">Succeeded</span>')
})

// Roles and CSRF ----------------------------------------------------------------------------------------------------

t.test('a viewer sees every email settings page read-only and every change is refused', async (t) => {
  const tenant = await makeTenant(app)
  const seq =
    (await api(tenant, 'POST', '/v1/email-sequences', { name: 'Kept', steps: [{ delayHours: 24, templateKey: 'review_request' }] })).json()
  await api(tenant, 'PUT', '/v1/email/providers/klaviyo', { apiKey: 'pk_viewer_1111' })
  const agent = await signedInViewer(tenant)
  for (
    const url of [
      '/admin/email/templates',
      '/admin/email/templates/review_request',
      '/admin/email/sequences',
      `/admin/email/sequences/${seq.id}`,
      '/admin/email/providers',
      '/admin/email/providers/klaviyo'
    ]
  ) {
    const page = await agent.get(url)
    t.equal(page.statusCode, 200, url)
    t.notMatch(page.body, 'action="/admin/email', `${url} offers no change`)
  }
  const changes: Array<[string, Record<string, string>]> = [
    ['/admin/email/templates/review_request', { subject: 'Hacked', body: 'Hacked' }],
    ['/admin/email/templates/review_request/test', { to: 'x@example.test' }],
    ['/admin/email/templates/review_request/reset', {}],
    ['/admin/email/sequences', threeSteps],
    [`/admin/email/sequences/${seq.id}`, threeSteps],
    [`/admin/email/sequences/${seq.id}/delete`, {}],
    ['/admin/email/providers/klaviyo', { apiKey: 'pk_hacked', events: 'loyalty.birthday_reward' }],
    ['/admin/email/providers/klaviyo/remove', {}]
  ]
  for (const [url, form] of changes) t.equal((await agent.post(url, form)).statusCode, 403, url)
  t.equal(await agent.get('/admin/email/sequences/new').then((r) => r.statusCode), 403)
  t.match((await api(tenant, 'GET', '/v1/email/templates/review_request')).json(), { custom: false })
  t.match((await api(tenant, 'GET', `/v1/email-sequences/${seq.id}`)).json(), { name: 'Kept' })
  t.match((await api(tenant, 'GET', '/v1/email/providers/klaviyo')).json(), { apiKeyLast4: '1111' })
})

t.test('every email settings form needs the CSRF token', async (t) => {
  const { tenant, agent } = await signedInOwner(app)
  const seq =
    (await api(tenant, 'POST', '/v1/email-sequences', { name: 'Kept', steps: [{ delayHours: 24, templateKey: 'review_request' }] })).json()
  await api(tenant, 'PUT', '/v1/email/providers/klaviyo', { apiKey: 'pk_csrf_2222' })
  await agent.get('/admin/email/templates')
  const forged: Array<[string, Record<string, string>]> = [
    ['/admin/email/templates/review_request', { subject: 'Forged', body: 'Forged' }],
    ['/admin/email/templates/review_request/reset', {}],
    ['/admin/email/sequences', threeSteps],
    [`/admin/email/sequences/${seq.id}/delete`, {}],
    ['/admin/email/providers/klaviyo', { apiKey: 'pk_forged', events: 'loyalty.birthday_reward' }],
    ['/admin/email/providers/klaviyo/remove', {}]
  ]
  for (const [url, form] of forged) {
    const res = await agent.post(url, { ...form, _csrf: '' })
    t.equal(res.statusCode, 403, url)
    t.match(res.body, /form expired/i)
  }
  t.match((await api(tenant, 'GET', '/v1/email/templates/review_request')).json(), { custom: false })
  t.equal((await api(tenant, 'GET', '/v1/email-sequences')).json().data.length, 1)
  t.match((await api(tenant, 'GET', '/v1/email/providers/klaviyo')).json(), { apiKeyLast4: '2222' })
})

t.test('the email pages link to each other', async (t) => {
  const { agent } = await signedInOwner(app)
  const res = await agent.get('/admin/email')
  for (const href of ['/admin/email/templates', '/admin/email/sequences', '/admin/email/providers']) t.match(res.body, `href="${href}"`)
})
