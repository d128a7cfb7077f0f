import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { normalizeOrigins, OriginError } from '../../lib/origins.js'
import type { AuditRepository } from '../audit/index.js'
import type { StoreEnv } from '../../types.js'
import type { StoresRepository } from './stores.repository.js'
import { marker, type Freshness } from '../../lib/freshness.js'

interface Deps { db: Knex, stores: StoresRepository, audit: AuditRepository, fresh: Freshness }

/** The list as stored, or 400 invalid_request naming the first bad origin. */
export function checkedOrigins (input: readonly string[]): string[] {
  try {
    return normalizeOrigins(input)
  } catch (err) {
    if (err instanceof OriginError) throw new errors.InvalidRequest(err.message)
    throw err
  }
}

/**
 * Replaces a store's allowed origins (docs/contract/storefront.md#origins) for the API, the admin pages and the CLI
 * alike. The storefront reads the store on every request, so the next call already sees the new list. A change is
 * audited as `store.origins_updated`; saving the same list again (or only reordering it) records nothing.
 */
export async function replaceStoreOrigins (
  { db, stores, audit, fresh }: Deps,
  store: StoreEnv,
  input: readonly string[],
  actor: string,
  ip: string | null
): Promise<string[]> {
  const origins = checkedOrigins(input)
  const added = origins.filter((o) => !store.allowedOrigins.includes(o))
  const removed = store.allowedOrigins.filter((o) => !origins.includes(o))
  if (origins.join('\n') === store.allowedOrigins.join('\n')) return origins
  await db.transaction(async (trx) => {
    await stores.setAllowedOrigins(store.id, origins, trx)
    if (added.length || removed.length) {
      await audit.record({
        orgId: store.orgId,
        action: 'store.origins_updated',
        actor,
        subject: `store:${store.id}`,
        ip,
        details: { added, removed }
      }, trx)
    }
  })
  await fresh.bump([marker.store(store.id)])
  return origins
}
