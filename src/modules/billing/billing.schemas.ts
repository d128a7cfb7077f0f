import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, NullableDateTime, PageQuery, Paged } from '../../schemas.js'

const PlanName = Type.Union([Type.Literal('free'), Type.Literal('growth'), Type.Literal('pro')], { description: 'free, growth or pro' })
const Money = { description: 'Integer minor units of `currency` (cents)' }

export const Subscription = Type.Object({
  storeEnvId: Type.String(),
  plan: PlanName,
  status: Type.String({ description: 'trialing, active, past_due (still served) or lapsed (only billing reads are served)' }),
  currentPeriodEnd: NullableDateTime,
  price: Type.Object({ amount: Type.Integer(Money), currency: Type.String(), interval: Type.Literal('month') }),
  provider: Type.String({ description: 'The billing provider that holds the subscription; `embedded` records changes itself' })
})

const Invoice = Type.Object({
  id: Type.String(),
  plan: PlanName,
  previousPlan: PlanName,
  amount: Type.Integer(Money),
  currency: Type.String(),
  status: Type.String({ description: 'paid or open' }),
  provider: Type.String(),
  periodStart: DateTime,
  periodEnd: DateTime,
  createdAt: DateTime
})

export const getSubscription = {
  tags: ['billing'],
  summary: 'The store\'s plan and subscription; served also while the subscription has lapsed',
  response: { 200: Subscription, ...authErrors }
}

export const changeSubscription = {
  tags: ['billing'],
  summary: 'Change the store\'s plan (owner only); admins and keys may only read billing',
  description: 'Goes through the billing provider; the embedded one starts a new 30-day period on the new plan and ' +
    'records an invoice at its list price. Appends `subscription.updated`. Asking for the current plan changes ' +
    'nothing. A lapsed store answers 403 `subscription_expired`: it is reactivated through the provider or the operator.',
  body: Type.Object({ plan: PlanName }, { additionalProperties: false, examples: [{ plan: 'pro' }] }),
  response: { 200: Subscription, ...authErrors }
}

export const listInvoices = {
  tags: ['billing'],
  summary: 'The store\'s invoices, newest first; served also while the subscription has lapsed',
  querystring: Type.Object({
    ...PageQuery,
    updatedSince: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only invoices created at or after this instant (invoices never change)' })
    )
  }),
  response: { 200: Paged(Invoice), ...authErrors }
}
