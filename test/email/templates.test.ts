import { readFile } from 'node:fs/promises'
import t from 'tap'
import { build, call } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { parseMail, smtpReceiver } from './smtp.js'

const smtp = await smtpReceiver(t)
const app = await build(t, { config: { smtpUrl: smtp.url } })
const photo = await readFile(new URL('../fixtures/photo.jpg', import.meta.url))

let n = 0
const address = () => `tpl-${++n}-${Date.now()}@example.test`
const req = (tenant: Tenant, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
  call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })

async function sendTest (tenant: Tenant, templateKey = 'review_request') {
  const to = address()
  const res = await req(tenant, 'POST', '/v1/email/test', { templateKey, to })
  t.equal(res.statusCode, 200)
  const mail = smtp.messages.find((m) => m.to.includes(to))
  if (!mail) throw new Error('not received')
  return parseMail(mail.raw)
}

t.test('a template is the built-in default until the store replaces it, and lists its variables', async (t) => {
  const tenant = await makeTenant(app)
  const res = await req(tenant, 'GET', '/v1/email/templates/loyalty_birthday')
  t.match(res.json(), { key: 'loyalty_birthday', custom: false, updatedAt: null, variables: ['customerName', 'storeName', 'points'] })
  t.equal((await req(tenant, 'GET', '/v1/email/templates/newsletter')).statusCode, 400)
})

t.test('a replaced template is used by the next mail, and its change is an event', async (t) => {
  const tenant = await makeTenant(app)
  const put = await req(tenant, 'PUT', '/v1/email/templates/review_request', {
    subject: 'Tell {{storeName}} about {{ orderId }}',
    body: 'Dear {{customerName}},\n\nOne minute, please:\n{{productList}}'
  })
  t.equal(put.statusCode, 200)
  t.match(put.json(), { custom: true })
  const mail = await sendTest(tenant)
  t.equal(mail.headers.get('subject'), 'Tell Main store about #1001')
  t.match(mail.text, 'Dear Ann,\n\nOne minute, please:\n- Linen shirt: https://shop.example/p/linen-shirt')
  const event = await app.db('events').where({ store_env_id: tenant.storeId, type: 'email_template.updated' }).first()
  t.equal(JSON.parse(event.data).subject, 'Tell {{storeName}} about {{ orderId }}')
})

t.test('a placeholder outside the template\'s variables is refused, naming the allowed ones', async (t) => {
  const tenant = await makeTenant(app)
  for (const body of ['Hi {{customer.email}}', 'Hi {{points}}', '{{constructor}}', 'Hi {{ }}', '{{#each x}}y{{/each}}']) {
    const res = await req(tenant, 'PUT', '/v1/email/templates/review_request', { subject: 'S', body })
    t.equal(res.statusCode, 400, body)
    t.match(res.json().message, /knows \{\{customerName\}\}, \{\{storeName\}\}, \{\{orderId\}\}, \{\{productList\}\}/)
  }
})

t.test('merchant text and values are escaped in the HTML part and substituted once, never re-read as template', async (t) => {
  const tenant = await makeTenant(app)
  await app.db('store_envs').where({ id: tenant.storeId }).update({ name: '{{customerName}} <b>Shop</b>' })
  await req(tenant, 'PUT', '/v1/email/templates/review_request', {
    subject: 'From {{storeName}}',
    body: '<script>alert(1)</script> & {{storeName}}'
  })
  const mail = await sendTest(tenant)
  t.match(mail.html, '&lt;script&gt;alert(1)&lt;/script&gt; &amp; {{customerName}} &lt;b&gt;Shop&lt;/b&gt;')
  t.notMatch(mail.html, '<script>')
  t.notMatch(mail.text, 'Ann', 'a value holding a placeholder is not expanded')
})

t.test('a template at the edges of its schema is a 400, never a 500', async (t) => {
  const tenant = await makeTenant(app)
  const bad = [
    { subject: 'Line\r\nBcc: x@example.test', body: 'b' },
    { subject: 'a'.repeat(301), body: 'b' },
    { subject: 's', body: 'b'.repeat(10_001) },
    { subject: '', body: 'b' },
    { subject: 's', body: 'nul\u0000' },
    { subject: 's' }
  ]
  for (const payload of bad) {
    t.equal((await req(tenant, 'PUT', '/v1/email/templates/review_request', payload)).statusCode, 400, JSON.stringify(payload).slice(0, 40))
  }
  const emoji = await req(tenant, 'PUT', '/v1/email/templates/review_request', { subject: '😀'.repeat(300), body: '😀'.repeat(10_000) })
  t.equal(emoji.statusCode, 200, 'the longest text of 4-byte characters is stored')
})

t.test('a test send is responsive HTML with a plain-text part, from the store\'s branded name', async (t) => {
  const tenant = await makeTenant(app)
  await req(tenant, 'PUT', '/v1/email-branding', {
    fromName: 'Linen & Co',
    primaryColor: '#AA3300',
    footerText: 'Linen & Co, 1 Market Street'
  })
  const mail = await sendTest(tenant, 'loyalty_birthday')
  t.match(mail.headers.get('content-type'), /^multipart\/alternative/)
  t.match(mail.headers.get('from'), /^"?Linen & Co"? <no-reply@localhost>$/)
  t.match(mail.html, '<meta name="viewport" content="width=device-width, initial-scale=1">')
  t.match(mail.html, 'max-width:600px')
  t.match(mail.html, 'background:#aa3300')
  t.match(mail.html, 'Linen &amp; Co, 1 Market Street')
  t.match(mail.text, 'We added 100 points to your account.')
  t.match(mail.text, '--\nLinen & Co, 1 Market Street')
  const log = (await req(tenant, 'GET', '/v1/email/messages?kind=test')).json()
  t.match(log.data, [{ kind: 'test', status: 'sent', subject: 'Happy birthday from Main store' }])
})

t.test('branding takes a logo only from this store\'s uploads, and the preview shows it', async (t) => {
  const tenant = await makeTenant(app)
  const other = await makeTenant(app)
  const store = (await app.services.stores.find(tenant.storeId))!
  const foreign = await app.services.uploads.storeImage((await app.services.stores.find(other.storeId))!, photo)
  const refused = await req(tenant, 'PUT', '/v1/email-branding', { logoUploadId: foreign.id })
  t.equal(refused.statusCode, 400)
  t.match(refused.json().message, /logoUploadId/)
  const logo = await app.services.uploads.storeImage(store, photo)
  const put = await req(tenant, 'PUT', '/v1/email-branding', { logoUploadId: logo.id, primaryColor: '#123456' })
  t.match(put.json(), { logoUploadId: logo.id, logoUrl: logo.url, fromName: null, footerText: null })
  const preview = await req(tenant, 'GET', '/v1/email-branding/preview?templateKey=review_reminder')
  t.equal(preview.statusCode, 200)
  t.match(preview.headers['content-type'], 'text/html')
  t.match(preview.body, `<img src="${logo.url}"`)
  t.match(preview.body, 'You have not reviewed your order #1001 yet.')
  t.equal((await req(other, 'GET', '/v1/email-branding')).json().logoUploadId, null, 'another store keeps its own branding')
})

t.test('branding input at the edges is a 400, never a 500', async (t) => {
  const tenant = await makeTenant(app)
  const bad = [
    { primaryColor: 'red' },
    { primaryColor: '#12345g' },
    { fromName: 'a'.repeat(101) },
    { fromName: 'Evil\r\nBcc: x' },
    { fromName: 'A <b@c>' },
    { footerText: 'f'.repeat(1001) },
    { logoUploadId: 'x'.repeat(41) },
    { other: 1 }
  ]
  for (const payload of bad) {
    t.equal((await req(tenant, 'PUT', '/v1/email-branding', payload)).statusCode, 400, JSON.stringify(payload).slice(0, 40))
  }
  t.equal((await req(tenant, 'GET', '/v1/email-branding/preview?templateKey=x')).statusCode, 400)
  t.equal((await req(tenant, 'POST', '/v1/email/test', { templateKey: 'review_request', to: 'nope' })).statusCode, 400)
})

t.test('resetting a template brings back the built-in default and announces it', async (t) => {
  const tenant = await makeTenant(app)
  await req(tenant, 'PUT', '/v1/email/templates/review_request', { subject: 'Custom {{orderId}}', body: 'Custom body' })
  const res = await call(app, { method: 'DELETE', url: '/v1/email/templates/review_request', key: tenant.key, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { key: 'review_request', custom: false, subject: 'How was your order from {{storeName}}?', updatedAt: null })
  t.match((await req(tenant, 'GET', '/v1/email/templates/review_request')).json(), { custom: false })
  const events = await app.db('events').where({ store_env_id: tenant.storeId, type: 'email_template.updated' }).orderBy('id')
  t.equal(events.length, 2)
  t.match(JSON.parse(events[1].data), { custom: false })
})
