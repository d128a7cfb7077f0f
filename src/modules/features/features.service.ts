import { errors } from '../../errors.js'
import type { Clock } from '../../lib/clock.js'
import { entitlementsOf, FEATURE_KEYS, isFeature, REQUEST_WINDOWS, type FeatureOverrides } from '../../features.js'
import { marker, type Freshness } from '../../lib/freshness.js'
import { MAX_LIMIT } from '../../lib/pagination.js'
import type { StoreEnv } from '../../types.js'
import type { StoresRepository } from '../account/stores.repository.js'
import { MAX_BATCH } from '../products/products.service.js'
import type { FeaturesRepository } from './features.repository.js'

interface Deps { repo: FeaturesRepository, stores: StoresRepository, clock: Clock, fresh: Freshness }

/** The store's entitlements (decisions.md section 15 `features`): its plan's, with the operator's overrides. */
export function featuresService ({ repo, stores, clock, fresh }: Deps) {
  return {
    /** What the pipeline's plan check reads (plugins/tenancy.ts caches it under the store's marker). */
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
      return { store: { id: store.id, plan: store.plan }, feature: { key: entitlement.key, enabled: entitlement.enabled, source: entitlement.source } }
    }
  }
}
export type FeaturesService = ReturnType<typeof featuresService>
