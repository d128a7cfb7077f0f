import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, NullableDateTime, PageQuery, Paged } from '../../schemas.js'

/** Points are whole numbers; one transaction moves at most a billion either way. */
const MAX_POINTS = 1_000_000_000
const Points = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_POINTS, description })
const CustomerParams = Type.Object({ customerId: Type.String({ minLength: 1, maxLength: 64 }) })

export const Tier = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 50 }),
  minPoints: Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Lifetime points earned from which the tier applies' })
}, { additionalProperties: false })

export const Settings = Type.Object({
  pointsPerUnit: Points('Points earned per whole unit of an order\'s total (1 = one point per dollar); 0 turns earning off'),
  birthdayReward: Type.Object({ points: Points('Granted once a year on the customer\'s birthday; 0 turns it off') }, {
    additionalProperties: false
  }),
  referralReward: Type.Object({
    referrerPoints: Points('For the customer who referred'),
    refereePoints: Points('For the referred customer, on their first order')
  }, { additionalProperties: false }),
  tiers: Type.Optional(
    Type.Array(Tier, {
      maxItems: 10,
      description:
        'Omitted: bronze (0), silver (1,000), gold (5,000). An account\'s tier is the highest whose minPoints its lifetime points reach'
    })
  )
}, { additionalProperties: false })

export const SettingsOut = Type.Object({ ...Settings.properties, tiers: Type.Array(Tier), updatedAt: NullableDateTime })

export const LedgerEntry = Type.Object({
  id: Type.String(),
  kind: Type.Union(
    [Type.Literal('api'), Type.Literal('order'), Type.Literal('birthday'), Type.Literal('referral'), Type.Literal('review')],
    { description: 'What made the entry' }
  ),
  points: Type.Integer({ description: 'Positive: earned; negative: spent' }),
  balanceAfter: Type.Integer(),
  reason: Type.String(),
  idempotencyKey: Type.String({
    description:
      'The key of an API transaction; for the service\'s own grants, what it is once per (the year, the order, the referral, the review)'
  }),
  createdAt: DateTime
})

export const Account = Type.Object({
  id: Type.Union([Type.String(), Type.Null()], { description: 'null until the customer\'s first points' }),
  customerId: Type.String(),
  balance: Type.Integer({ minimum: 0 }),
  lifetimePoints: Type.Integer({ minimum: 0 }),
  tier: Type.Union([Type.String(), Type.Null()]),
  createdAt: NullableDateTime,
  updatedAt: NullableDateTime
})

export const getSettings = { tags: ['loyalty'], summary: 'The store\'s loyalty settings', response: { 200: SettingsOut, ...authErrors } }

export const putSettings = {
  tags: ['loyalty'],
  summary: 'Replace the store\'s loyalty settings (appends `loyalty.settings.updated`)',
  body: Type.Object(Settings.properties, {
    additionalProperties: false,
    examples: [{
      pointsPerUnit: 1,
      birthdayReward: { points: 200 },
      referralReward: { referrerPoints: 500, refereePoints: 250 },
      tiers: [{ name: 'member', minPoints: 0 }, { name: 'vip', minPoints: 2000 }]
    }]
  }),
  response: { 200: SettingsOut, ...authErrors }
}

export const listAccounts = {
  tags: ['loyalty'],
  summary: 'List loyalty accounts, least recently updated first (updatedAt, then id)',
  querystring: Type.Object({ ...PageQuery, updatedSince: Type.Optional(Type.String({ format: 'date-time' })) }),
  response: { 200: Paged(Account), ...authErrors }
}

export const getAccount = {
  tags: ['loyalty'],
  summary: 'A customer\'s loyalty account with its ledger, newest entry first',
  params: CustomerParams,
  querystring: Type.Object(PageQuery),
  response: { 200: Type.Object({ ...Account.properties, ledger: Paged(LedgerEntry) }), ...authErrors }
}

export const createTransaction = {
  tags: ['loyalty'],
  summary: 'Add or spend points; the same idempotency key applies once',
  description: 'Positive points are earned, negative spent. A balance never goes below zero: a spend larger than the ' +
    'balance is refused whole with 409 `insufficient_points`. The idempotency key is per customer: a repeat with the ' +
    'same key, points and reason answers 200 with the first entry and changes nothing (also when the two arrive at ' +
    'once); the same key with other points or another reason is 409 `idempotency_key_reused`. Appends ' +
    '`loyalty.account.updated`.',
  params: CustomerParams,
  body: Type.Object({
    points: Type.Integer({ minimum: -MAX_POINTS, maximum: MAX_POINTS, description: 'Not 0' }),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
    idempotencyKey: Type.String({ minLength: 1, maxLength: 100 })
  }, { additionalProperties: false, examples: [{ points: -500, reason: 'Redeemed for a 5 EUR voucher', idempotencyKey: 'redeem-7f3a' }] }),
  response: {
    200: Type.Object({ entry: LedgerEntry, account: Account }, { description: 'A repeat: the entry the key first made' }),
    201: Type.Object({ entry: LedgerEntry, account: Account }),
    ...authErrors,
    409: authErrors[400]
  }
}

export const Referral = Type.Object({
  id: Type.String(),
  referrerCustomerId: Type.String(),
  refereeEmail: Type.Union([Type.String(), Type.Null()], { description: 'null once the referee was erased' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('completed')]),
  refereeCustomerId: Type.Union([Type.String(), Type.Null()]),
  orderId: Type.Union([Type.String(), Type.Null()], { description: 'The platformOrderId of the referee\'s first order' }),
  createdAt: DateTime,
  completedAt: NullableDateTime,
  updatedAt: Type.String({ format: 'date-time', description: 'When it was made, completed, or lost its referee\'s address to an erasure' })
})

export const createReferral = {
  tags: ['loyalty'],
  summary: 'Record that a customer referred someone; their first order completes it',
  description: 'Completed by the first order written with the referee\'s address (compared case-insensitively), which is ' +
    'linked to the customer with that address, or to one made from it when none exists yet: both get the settings\' referral points and each reward appends `loyalty.referral_reward`. Refused with 409 `conflict` ' +
    'when the address already placed an order, was already referred, or is the referrer\'s own.',
  body: Type.Object({
    referrerCustomerId: Type.String({ minLength: 1, maxLength: 64 }),
    refereeEmail: Type.String({ format: 'email', maxLength: 320 })
  }, { additionalProperties: false, examples: [{ referrerCustomerId: 'cus_4kQ9xT1mZb7sW2aaaaaa', refereeEmail: 'sam.lee@example.com' }] }),
  response: { 201: Referral, ...authErrors, 409: authErrors[400] }
}

export const listReferrals = {
  tags: ['loyalty'],
  summary: 'List referrals, newest first',
  description: 'With `updatedSince`, the referrals changed at or after it, oldest change first (ties by id), so a client ' +
    'that asks again from the last `updatedAt` it saw misses none. Each change appends `loyalty.referral.created`, ' +
    '`.updated` (completed, or the referee erased) or `.deleted` (a pending referral withdrawn by an erasure).',
  querystring: Type.Object({
    ...PageQuery,
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('completed')])),
    updatedSince: Type.Optional(Type.String({ format: 'date-time' }))
  }),
  response: { 200: Paged(Referral), ...authErrors }
}
