import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, NullableDateTime } from '../../schemas.js'

const RecordStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('verified'),
  Type.Literal('missing'),
  Type.Literal('mismatch'),
  Type.Literal('unreachable')
], {
  description:
    '`pending` (not checked yet), `verified`, `missing` (no such record), `mismatch` (a record with another value), `unreachable` (DNS did not answer)'
})

export const SendingDomain = Type.Object({
  domain: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified')], {
    description: '`verified` while the DKIM record matches: mail is then signed and sent from `fromAddress`'
  }),
  fromAddress: Type.String(),
  records: Type.Array(Type.Object({
    purpose: Type.Union([Type.Literal('dkim'), Type.Literal('spf'), Type.Literal('dmarc'), Type.Literal('return_path')]),
    type: Type.Union([Type.Literal('TXT'), Type.Literal('CNAME')]),
    name: Type.String(),
    value: Type.String(),
    status: RecordStatus
  })),
  verifiedAt: NullableDateTime,
  checkedAt: NullableDateTime,
  updatedAt: DateTime
})

const tags = ['sending-domain']

export const getDomain = {
  tags,
  summary: 'The store\'s sending domain and the DNS records to publish, with their status',
  response: { 200: SendingDomain, ...authErrors }
}

export const putDomain = {
  tags,
  summary: 'Send from a domain of the store: generates its DKIM key pair and lists the records to publish',
  description: 'The private key is kept encrypted and never returned. Giving the same domain again changes nothing; ' +
    'another domain gets a new key and starts unverified. Appends `sending_domain.updated`.',
  body: Type.Object({ domain: Type.String({ minLength: 1, maxLength: 254 }) }, {
    additionalProperties: false,
    examples: [{ domain: 'mail.shop.example' }]
  }),
  response: { 200: SendingDomain, ...authErrors }
}

export const verifyDomain = {
  tags,
  summary: 'Check the records in DNS now; a matching DKIM record turns signing on',
  response: { 200: SendingDomain, ...authErrors }
}
