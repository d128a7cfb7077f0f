import { Type } from '@sinclair/typebox'
import { authErrors } from '../../schemas.js'
import { FEATURE_KEYS } from '../../features.js'

const Entitlement = Type.Object({
  key: Type.String({ description: `One of ${FEATURE_KEYS.join(', ')}` }),
  label: Type.String(),
  minPlan: Type.Union([Type.Literal('free'), Type.Literal('growth'), Type.Literal('pro')], {
    description: 'The least plan that includes the feature'
  }),
  enabled: Type.Boolean({ description: 'Whether requests that need the feature are served (else 403 `plan_required`)' }),
  source: Type.Union([Type.Literal('plan'), Type.Literal('override')], {
    description: '`override`: set by the operator, whatever the plan says'
  })
})

export const Entitlements = Type.Object({
  plan: Type.Union([Type.Literal('free'), Type.Literal('growth'), Type.Literal('pro')]),
  subscriptionStatus: Type.String({ description: 'trialing, active, past_due or lapsed' }),
  features: Type.Array(Entitlement, { description: 'Every plan-gated feature; everything not listed works on every plan' }),
  limits: Type.Object({
    requestWindows: Type.Array(Type.Object({ seconds: Type.Number(), requests: Type.Integer() }), {
      description: 'Per-credential request limits, applied together'
    }),
    batchItems: Type.Integer({ description: 'Items per bulk upsert' }),
    pageSize: Type.Integer({ description: 'Largest page of a list' })
  })
})

export const getFeatures = {
  tags: ['features'],
  summary: 'The store\'s entitlements: which plan-gated features its plan (or an operator override) enables, and its limits',
  description: 'The same table the request pipeline checks: a feature shown as disabled answers 403 `plan_required`. ' +
    'Operators override a feature per store with `npx evidence-hub store set-feature`; the change applies from the next request.',
  response: { 200: Entitlements, ...authErrors }
}
