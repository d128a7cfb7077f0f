import t from 'tap'
import { dkimVerify } from 'mailauth'
import { build, call } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { localDns } from './dns.js'
import { parseMail, smtpReceiver } from './smtp.js'

const { resolver, publish } = await localDns(t)
const smtp = await smtpReceiver(t)
const app = await build(t, { config: { smtpUrl: smtp.url }, resolver })
const req = (tenant: Tenant, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
  call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })

let n = 0
const uniqueDomain = () => `m${++n}${Date.now()}.shop.example`

t.test('a new sending domain gets a DKIM key pair, the records to publish, and stays pending until DNS has them', async (t) => {
  const tenant = await makeTenant(app)
  const domain = uniqueDomain()
  const res = await req(tenant, 'PUT', '/v1/sending-domain', { domain: `${domain.toUpperCase()}.` })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body, { domain, status: 'pending', fromAddress: `no-reply@${domain}`, verifiedAt: null })
  t.same(body.records.map((r: { purpose: string, type: string, status: string }) => [r.purpose, r.type, r.status]), [
    ['dkim', 'TXT', 'pending'],
    ['spf', 'TXT', 'pending'],
    ['dmarc', 'TXT', 'pending'],
    ['return_path', 'CNAME', 'pending']
  ])
  t.match(body.records[0].value, /^v=DKIM1; k=rsa; p=MIIBIjAN[A-Za-z0-9+/=]+$/)
  t.match(body.records[1], { name: domain, value: 'v=spf1 include:_spf.127.0.0.1 ~all' })
  t.notMatch(JSON.stringify(body), 'PRIVATE KEY')
  const row = await app.db('sending_domains').where({ store_env_id: tenant.storeId }).first()
  t.match(row.dkim_private_key, /^v1\./, 'the private key is sealed at rest')
  const verify = await req(tenant, 'POST', '/v1/sending-domain/verify')
  t.same(verify.json().records.map((r: { status: string }) => r.status), ['missing', 'missing', 'missing', 'missing'])
  t.equal(verify.json().status, 'pending')
})

t.test('once its records are in DNS the domain is verified and mail is DKIM-signed from it, passing an independent verifier', async (t) => {
  const tenant = await makeTenant(app)
  const domain = uniqueDomain()
  const { records } = (await req(tenant, 'PUT', '/v1/sending-domain', { domain })).json()
  publish(records)
  const verified = (await req(tenant, 'POST', '/v1/sending-domain/verify')).json()
  t.equal(verified.status, 'verified')
  t.same(verified.records.map((r: { status: string }) => r.status), ['verified', 'verified', 'verified', 'verified'])
  const to = `dkim-${n}@example.test`
  t.equal((await req(tenant, 'POST', '/v1/email/test', { templateKey: 'review_request', to })).json().status, 'sent')
  const raw = smtp.messages.find((m) => m.to.includes(to))!.raw
  t.match(parseMail(raw).headers.get('from'), `<no-reply@${domain}>`)
  const result = await dkimVerify(raw, { resolver: (name, type) => resolver.resolve(name, type) as Promise<string[][]> })
  t.equal(result.results.length, 1)
  t.match(result.results[0], { signingDomain: domain, status: { result: 'pass', aligned: domain } })
})

t.test('a record with another value is a mismatch, and without a matching DKIM record mail is not signed', async (t) => {
  const tenant = await makeTenant(app)
  const domain = uniqueDomain()
  const { records } = (await req(tenant, 'PUT', '/v1/sending-domain', { domain })).json()
  publish([{ ...records[0], value: 'v=DKIM1; k=rsa; p=AAAA' }, records[1], { ...records[1], value: 'v=spf1 -all' }, {
    ...records[3],
    value: 'elsewhere.example'
  }])
  const checked = (await req(tenant, 'POST', '/v1/sending-domain/verify')).json()
  t.same(checked.records.map((r: { status: string }) => r.status), ['mismatch', 'mismatch', 'missing', 'mismatch'])
  t.equal(checked.status, 'pending')
  const to = `unsigned-${n}@example.test`
  await req(tenant, 'POST', '/v1/email/test', { templateKey: 'review_request', to })
  const raw = smtp.messages.find((m) => m.to.includes(to))!.raw
  t.notMatch(raw, /^DKIM-Signature:/im)
  t.match(parseMail(raw).headers.get('from'), '<no-reply@localhost>')
})

t.test('the same domain again keeps its key; another domain gets a new key and starts unverified', async (t) => {
  const tenant = await makeTenant(app)
  const domain = uniqueDomain()
  const first = (await req(tenant, 'PUT', '/v1/sending-domain', { domain })).json()
  const again = (await req(tenant, 'PUT', '/v1/sending-domain', { domain })).json()
  t.equal(again.records[0].name, first.records[0].name)
  t.equal(again.records[0].value, first.records[0].value)
  const other = (await req(tenant, 'PUT', '/v1/sending-domain', { domain: uniqueDomain() })).json()
  t.not(other.records[0].value, first.records[0].value)
  t.equal((await req(tenant, 'GET', '/v1/sending-domain')).json().domain, other.domain)
})

t.test('a domain that is not a host name is a 400; another store sees no sending domain', async (t) => {
  const tenant = await makeTenant(app)
  for (
    const domain of [
      'localhost',
      'a..b.example',
      '-x.example',
      'x'.repeat(64) + '.example',
      `${'a.'.repeat(126)}example`,
      'shop.example/path',
      'ünï.example',
      ' ',
      'x'.repeat(255)
    ]
  ) {
    t.equal((await req(tenant, 'PUT', '/v1/sending-domain', { domain })).statusCode, 400, domain.slice(0, 40))
  }
  const other = await makeTenant(app)
  await req(tenant, 'PUT', '/v1/sending-domain', { domain: uniqueDomain() })
  t.equal((await req(other, 'GET', '/v1/sending-domain')).statusCode, 404)
  t.equal((await req(other, 'POST', '/v1/sending-domain/verify')).statusCode, 404)
})
