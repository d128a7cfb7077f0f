import { errors } from '../../errors.js'
import type { Clock } from '../../lib/clock.js'
import {
  entitlementsOf,
  FEATURE_KEYS,
  isFeature,
  planRefusal,
  REQUEST_WINDOWS,
  type Feature,
  type FeatureOverrides
} from '../../features.js'
import { marker, type Freshness } from '../../lib/freshness.js'
import { MAX_LIMIT } from '../../lib/pagination.js'
import type { StoreEnv } from '../../types.js'
import type { StoresRepository } from '../account/index.js'
import { MAX_BATCH } from '../products/index.js'
import type { FeaturesRepository } from './features.repository.js'

interface Deps { repo: FeaturesRepository, stores: StoresRepository, clock: Clock, fresh: Freshness }

/** The store's entitlements (docs/contract/plans-and-limits.md#features): its plan's, with the operator's overrides. */
export function featuresService ({ repo, stores, clock, fresh }: Deps) {
  /** The plans and overrides `includes` read, each kept a second (real time) per store. */
  const held = new Map<string, { at: number, read: Promise<{ plan: StoreEnv['plan'], overrides: FeatureOverrides } | null> }>()

  return {
    /** What the pipeline's plan check reads (pipeline/check-access.ts caches it under the store's marker). */
    overrides: (storeId: string): Promise<FeatureOverrides> => repo.overrides(storeId),

    /** `overrides` as the pipeline keeps them (app.storeOverrides), so a read is answered from memory. */
    entitlements (store: StoreEnv, overrides: FeatureOverrides) {
      return {
        plan: store.plan,
        subscriptionStatus: store.subscriptionStatus,
        features: entitlementsOf(store.plan, overrides),
        limits: {
          requestWindows: REQUEST_WINDOWS.map((w) => ({ seconds: w.ms / 1000, requests: w.limit })),
          batchItems: MAX_BATCH,
          pageSize: MAX_LIMIT
        }
      }
    },

    /**
     * Whether a store's entitlements include `feature`, for work outside a request (the delivery worker): its plan
     * and overrides are read at most once a second per store, so a change is seen within a second. A failed read is
     * not kept.
     */
    async includes (storeId: string, feature: Feature): Promise<boolean> {
      const now = Date.now()
      let entry = held.get(storeId)
      if (!entry || now - entry.at > 1_000) {
        if (held.size > 10_000) held.clear()
        const read = stores.find(storeId).then(async (store) => store && { plan: store.plan, overrides: await repo.overrides(storeId) })
        const kept = { at: now, read }
        entry = kept
        held.set(storeId, kept)
        read.catch(() => { if (held.get(storeId) === kept) held.delete(storeId) })
      }
      const found = await entry.read
      return found !== null && planRefusal(found.plan, found.overrides, { feature }) === null
    },

    /**
     * The operator's override (`store set-feature`): `enabled` true or false replaces what the plan says, null goes
     * back to the plan. Bumping the store's marker makes every instance's next request see it.
     */
    async setOverride (input: { store: string, feature: string, enabled: boolean | null }) {
      if (!isFeature(input.feature)) throw new errors.InvalidRequest(`--feature must be one of ${FEATURE_KEYS.join(', ')}`)
      const store = await stores.find(input.store)
      if (!store) throw new errors.NotFound('Store environment')
      if (input.enabled === null) await repo.clear(store.id, input.feature)
      else await repo.set(store, input.feature, input.enabled, clock())
      await fresh.bump([marker.store(store.id)])
      const entitlement = entitlementsOf(store.plan, await repo.overrides(store.id)).find((e) => e.key === input.feature)!
      return {
        store: { id: store.id, plan: store.plan },
        feature: { key: entitlement.key, enabled: entitlement.enabled, source: entitlement.source }
      }
    }
  }
}
export type FeaturesService = ReturnType<typeof featuresService>
