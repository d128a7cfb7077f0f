import { PLANS, type Plan } from './types.js'

/**
 * The plan-gated features (docs/contract/plans-and-limits.md#plans-and-subscription and
 * docs/contract/plans-and-limits.md#features): the one table that `GET /features`, the request pipeline's plan check
 * (plugins/tenancy.ts, routes name a feature in `config.feature`), the MCP tool list and the operator's overrides
 * (`store set-feature`) all read. Everything not listed here works on every plan.
 */
export const FEATURES = {
  'outbound-webhooks': { label: 'Outbound webhooks: create subscriptions (retiring one needs no plan)', minPlan: 'growth' },
  'connector-hooks': { label: 'Automation platform hooks (REST hooks): subscribe (unsubscribing needs no plan)', minPlan: 'growth' }
} as const satisfies Record<string, { label: string, minPlan: Plan }>

export type Feature = keyof typeof FEATURES
export const FEATURE_KEYS = Object.keys(FEATURES) as Feature[]

export function isFeature (value: string): value is Feature {
  return Object.hasOwn(FEATURES, value)
}

export function planAtLeast (plan: Plan, least: Plan): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(least)
}

/** Operator overrides of one store: feature -> enabled, replacing what its plan says. */
export type FeatureOverrides = Partial<Record<Feature, boolean>>

export interface Entitlement { key: Feature, label: string, minPlan: Plan, enabled: boolean, source: 'plan' | 'override' }

/** What a store on `plan` with `overrides` may use, feature by feature. */
export function entitlementsOf (plan: Plan, overrides: FeatureOverrides): Entitlement[] {
  return FEATURE_KEYS.map((key) => {
    const { label, minPlan } = FEATURES[key]
    const override = overrides[key]
    return override === undefined
      ? { key, label, minPlan, enabled: planAtLeast(plan, minPlan), source: 'plan' as const }
      : { key, label, minPlan, enabled: override, source: 'override' as const }
  })
}

/**
 * Whether a route may be served: `feature` by the entitlements, a bare `plan` (a route gated on a plan rather than
 * a named feature) by the plan. Null when allowed, else the plan to name in the refusal.
 */
export function planRefusal (plan: Plan, overrides: FeatureOverrides, need: { feature?: Feature, plan?: Plan }): Plan | null {
  if (need.feature) {
    const override = overrides[need.feature]
    const { minPlan } = FEATURES[need.feature]
    const enabled = override ?? planAtLeast(plan, minPlan)
    return enabled ? null : minPlan
  }
  if (need.plan && !planAtLeast(plan, need.plan)) return need.plan
  return null
}

/**
 * The per-credential request windows of every plan (docs/contract/plans-and-limits.md#request-limits): the same on
 * every plan today, so one list; plugins/rate-limit.ts enforces it and `GET /features` serves it.
 */
export const REQUEST_WINDOWS: ReadonlyArray<{ ms: number, limit: number }> = [
  { ms: 1_000, limit: 10 },
  { ms: 10_000, limit: 50 },
  { ms: 60_000, limit: 200 }
]
