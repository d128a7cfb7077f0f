import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, PageQuery, Paged } from '../../schemas.js'

const TAGS = ['affiliates']
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

/** A fraction from 0 to 1 with at most four decimals (a basis point), as text so no float ever touches it. */
/**
 * A decimal string, or a JSON number as integrators send it (0.5): a number is read from its shortest decimal text
 * (0.1 is "0.1", never 0.1000000000000000055…), so arithmetic stays exact (basis points); more than four decimals,
 * or outside 0..1, is a 400 (affiliates.service.ts rateText).
 */
const CommissionRate = Type.Union([
  Type.String({ pattern: '^(0(\\.[0-9]{1,4})?|1(\\.0{1,4})?)$', maxLength: 6 }),
  Type.Number({ minimum: 0, maximum: 1 })
], {
  description: 'The share of the order total paid as commission, from 0 to 1 with at most four decimals, as a decimal string or a ' +
    'JSON number ("0.1" or 0.1 = 10 %, "0.0725" = 7.25 %); answered as a decimal string'
})
const Code = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,64}$',
  maxLength: 64,
  description: 'Letters, digits, `_` and `-`; unique in the store, matched without regard to case and stored upper-cased'
})
const Name = Type.String({ minLength: 1, maxLength: 200 })
const CustomerId = Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'The customer this affiliate is, if any' }))
const UpdatedSince = Type.Optional(
  Type.String({ format: 'date-time', description: 'Only what changed at or after this instant (ISO 8601)' })
)

export const Affiliate = Type.Object({
  id: Type.String({ description: '`aff_…`' }),
  customerId: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  code: Type.String(),
  commissionRate: Type.String({ description: 'Decimal string, e.g. "0.1"' }),
  createdAt: DateTime,
  updatedAt: DateTime
})

const referralDoc = 'A referral is recorded when an order upserted through PUT /orders carries the affiliate\'s code, one per ' +
  'order: re-sending the order never records a second one (a changed total or currency recomputes it; the first ' +
  'affiliate stays attributed). The commission is commissionRate x order total, rounded half up to the cent, and at ' +
  'most 500 USD: an order in another currency is converted with the store\'s usdRates (PUT /affiliates/settings), a ' +
  'capped commission is the largest amount worth no more than 500 USD. Without a rate for the currency the referral ' +
  'is `pending_rate`, with no commission, until a rate is set. Amounts are integers in cents of the order\'s currency.'

export const Referral = Type.Object({
  id: Type.String({ description: '`ref_…`' }),
  affiliateId: Type.String(),
  orderId: Type.String({ description: 'The platformOrderId' }),
  currency: Type.Union([Type.String(), Type.Null()]),
  orderTotalCents: Type.Union([Type.Integer(), Type.Null()], { description: 'The order total in cents of its currency' }),
  commissionRate: Type.String({ description: 'The affiliate\'s rate when the referral was recorded' }),
  commissionCents: Type.Union([Type.Integer(), Type.Null()], { description: 'In cents of the order\'s currency; null while pending_rate' }),
  commissionUsdCents: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Its value in USD cents, at most 50000; null while pending_rate'
  }),
  usdRate: Type.Union([Type.String(), Type.Null()], { description: 'USD per unit of the currency used for the cap' }),
  capped: Type.Boolean({ description: 'True when the 500 USD cap reduced the commission' }),
  status: Type.Union([Type.Literal('payable'), Type.Literal('pending_rate')]),
  createdAt: DateTime,
  updatedAt: DateTime
}, { description: referralDoc })

export const createAffiliate = {
  tags: TAGS,
  summary: 'Create an affiliate with a code and a commission rate',
  description: 'Appends `affiliate.created`. A code already used in the store is `conflict` (409).',
  body: Type.Object({
    customerId: Type.Optional(CustomerId),
    name: Name,
    code: Code,
    commissionRate: CommissionRate
  }, { additionalProperties: false, examples: [{ name: 'Ann\'s blog', code: 'ANN10', commissionRate: '0.1', customerId: 'cust-1042' }] }),
  response: { 201: Affiliate, ...authErrors }
}

export const listAffiliates = {
  tags: TAGS,
  summary: 'List affiliates, most recently updated first',
  querystring: Type.Object({ ...PageQuery, updatedSince: UpdatedSince }),
  response: { 200: Paged(Affiliate), ...authErrors }
}

export const getAffiliate = {
  tags: TAGS,
  summary: 'One affiliate',
  params: IdParams,
  response: { 200: Affiliate, ...authErrors }
}

export const updateAffiliate = {
  tags: TAGS,
  summary: 'Change an affiliate\'s name, code, rate or customer',
  description:
    'Only the fields sent change. A new rate applies to referrals recorded from now on. Appends `affiliate.updated` when something changed.',
  params: IdParams,
  body: Type.Object({
    customerId: Type.Optional(CustomerId),
    name: Type.Optional(Name),
    code: Type.Optional(Code),
    commissionRate: Type.Optional(CommissionRate)
  }, { additionalProperties: false, minProperties: 1, examples: [{ commissionRate: '0.125' }] }),
  response: { 200: Affiliate, ...authErrors }
}

export const deleteAffiliate = {
  tags: TAGS,
  summary: 'Delete an affiliate and its referrals',
  description: 'Appends `affiliate.deleted`. Orders keep their affiliateCode; a later order with the code records nothing.',
  params: IdParams,
  response: { 204: Type.Null(), ...authErrors }
}

export const listReferrals = {
  tags: TAGS,
  summary: 'The referrals of one affiliate, most recently updated first',
  description: referralDoc,
  params: IdParams,
  querystring: Type.Object({
    ...PageQuery,
    updatedSince: UpdatedSince,
    status: Type.Optional(Type.Union([Type.Literal('payable'), Type.Literal('pending_rate')]))
  }),
  response: { 200: Paged(Referral), ...authErrors }
}

const UsdRates = Type.Record(
  Type.String({ pattern: '^[A-Z]{3}$' }),
  Type.String({ pattern: '^[0-9]{1,6}(\\.[0-9]{1,8})?$', maxLength: 15 }),
  {
    maxProperties: 200,
    additionalProperties: false,
    description:
      'USD per one unit of each currency, as a decimal string with at most 8 decimals (EUR "1.08": 1 EUR is worth 1.08 USD). USD itself is always 1 and is not listed.'
  }
)

export const Settings = Type.Object({ usdRates: UsdRates, updatedAt: Type.Union([DateTime, Type.Null()]) })

export const getSettings = {
  tags: TAGS,
  summary: 'The store\'s USD rates used for the commission cap',
  response: { 200: Settings, ...authErrors }
}

export const putSettings = {
  tags: TAGS,
  summary: 'Replace the store\'s USD rates; referrals waiting for a rate are settled with it',
  description: 'The rates replace the stored ones. Each `pending_rate` referral in a currency that now has a rate gets its ' +
    'commission (capped at 500 USD) and appends `affiliate.referral_updated`. Payable referrals keep the rate they were ' +
    'computed with. A rate of 0 or a USD entry is `invalid_request`.',
  body: Type.Object({ usdRates: UsdRates }, {
    additionalProperties: false,
    examples: [{ usdRates: { EUR: '1.08', GBP: '1.27', JPY: '0.0067' } }]
  }),
  response: { 200: Settings, ...authErrors }
}
