import type { Knex } from 'knex'
import { isFeature, type Feature, type FeatureOverrides } from '../../features.js'

interface Row { store_env_id: string, org_id: string, feature: string, enabled: number | boolean, updated_at: number }

/** Operator overrides of a store's features (`store_features`): one row per overridden feature. */
export function featuresRepository (db: Knex) {
  return {
    async overrides (storeId: string): Promise<FeatureOverrides> {
      const rows = await db<Row>('store_features').where({ store_env_id: storeId }).select('feature', 'enabled')
      const overrides: FeatureOverrides = {}
      // A feature dropped from the catalogue leaves rows behind that mean nothing any more.
      for (const row of rows) if (isFeature(row.feature)) overrides[row.feature] = Boolean(row.enabled)
      return overrides
    },

    async set (store: { id: string, orgId: string }, feature: Feature, enabled: boolean, now: number): Promise<void> {
      await db('store_features')
        .insert({ store_env_id: store.id, org_id: store.orgId, feature, enabled, updated_at: now })
        .onConflict(['store_env_id', 'feature']).merge({ enabled, updated_at: now })
    },

    async clear (storeId: string, feature: Feature): Promise<void> {
      await db('store_features').where({ store_env_id: storeId, feature }).delete()
    }
  }
}
export type FeaturesRepository = ReturnType<typeof featuresRepository>
