import type { Credential, CredentialClaim, StoreEnv } from '../types.js'
import type { FeatureOverrides } from '../features.js'
import { staleAfter } from '../lib/freshness.js'
import { BoundedMap } from '../lib/bounded-map.js'

export type { CredentialClaim } from '../types.js'

export interface CredentialEntry {
  credential: Credential
  /**
   * What the token was found to claim when first read (its signature checked, for an OAuth token). Reading the
   * entry again asks the database through it, without verifying the same token's signature once more.
   */
  claim: CredentialClaim
  markers: string[]
  /** The markers' values read before the database was, in `markers` order. */
  seen: string[]
  expiresAt: number | null
  /**
   * When it is read again whatever its markers say (lib/freshness.ts `staleAfter`): a backstop only, read off the
   * request's path (see `refresh`).
   */
  staleAt: number
}

interface StoreEntry { store: StoreEnv, seen: string, staleAt: number }
interface FeaturesEntry { overrides: FeatureOverrides, seen: string, staleAt: number }

const MAX_ENTRIES = 20_000
/** How long a backstop read waits for others to share its query; nothing waits for it. */
const REFRESH_WINDOW_MS = 10

/**
 * Per-instance memory of resolved credentials (by the SHA-256 of the token, never the token) and stores. An entry
 * is used only when the markers the limiter script returned for this very request equal those it was loaded
 * under (pipeline/charge-and-read-markers.ts, pipeline/resolve-store.ts); otherwise the database is read again.
 */
export class CredentialCache {
  private readonly credentials = new BoundedMap<CredentialEntry>(MAX_ENTRIES)
  private readonly stores = new BoundedMap<StoreEntry>(MAX_ENTRIES)
  private readonly features = new BoundedMap<FeaturesEntry>(MAX_ENTRIES)

  private readonly refreshing = new Map<string, Promise<void>>()
  /** Backstop reads waiting for the end of their window (`refresh`), each started by calling it. */
  private readonly due: Array<() => void> = []
  private dueTimer: NodeJS.Timeout | null = null

  /** The entry until its credential expires; past its `staleAt` as well, which the caller checks. */
  credential (tokenHash: string, now: number): CredentialEntry | undefined {
    const entry = this.credentials.get(tokenHash)
    if (!entry) return undefined
    if (entry.expiresAt !== null && now >= entry.expiresAt) {
      this.credentials.delete(tokenHash)
      return undefined
    }
    return entry
  }

  /**
   * Runs `load` (which keeps or forgets the entry) unless a read of the same credential is under way. For entries
   * past their backstop age whose markers this request found unchanged: the entries an instance reads in its first
   * seconds all reach that age within the same 20 s, and read on the requests' path they put a database query in
   * each of them at once (p99 of a list read 11.6 -> 24 ms while it lasted).
   */
  refresh (tokenHash: string, load: () => Promise<unknown>): void {
    if (this.refreshing.has(tokenHash)) return
    const due = new Promise<void>((resolve) => this.due.push(resolve))
    this.refreshing.set(tokenHash, due.then(load).then(() => {}, () => {}).finally(() => this.refreshing.delete(tokenHash)))
    if (!this.dueTimer) {
      this.dueTimer = setTimeout(() => this.startDue(), REFRESH_WINDOW_MS)
      this.dueTimer.unref()
    }
  }

  /**
   * Starts every read that fell due in the window at once, so a resolver whose lookups batch per tick reads them
   * in one query: the warm entries of a busy instance reach their backstop age at hundreds a second, and a query
   * each cost ~15 % of its throughput while they did (api-keys.repository.ts).
   */
  private startDue () {
    if (this.dueTimer) clearTimeout(this.dueTimer)
    this.dueTimer = null
    for (const start of this.due.splice(0)) start()
  }

  /** Resolves once the reads `refresh` started (or had waiting) have ended (the app waits for them as it closes). */
  async settled (): Promise<void> {
    this.startDue()
    await Promise.all(this.refreshing.values())
  }

  keepCredential (tokenHash: string, entry: CredentialEntry) { this.credentials.set(tokenHash, entry) }
  forgetCredential (tokenHash: string) { this.credentials.delete(tokenHash) }

  /** The store, when it was loaded under the marker value `seen` this request read. */
  store (id: string, seen: string, now: number): StoreEnv | undefined {
    const entry = this.stores.get(id)
    if (!entry || entry.seen !== seen || now >= entry.staleAt) return undefined
    return entry.store
  }

  /**
   * The store as last loaded, whatever marker value it was loaded under: a provisional answer for a caller that
   * learns the current value only later in the request (plugins/storefront.ts), and checks it then.
   */
  latestStore (id: string, now: number): { store: StoreEnv, seen: string } | undefined {
    const entry = this.stores.get(id)
    return entry && now < entry.staleAt ? entry : undefined
  }

  keepStore (store: StoreEnv, seen: string, now: number) { this.stores.set(store.id, { store, seen, staleAt: staleAfter(now) }) }

  /** The store's feature overrides, when loaded under the store marker value `seen` (set-feature bumps it). */
  featureOverrides (id: string, seen: string, now: number): FeatureOverrides | undefined {
    const entry = this.features.get(id)
    if (!entry || entry.seen !== seen || now >= entry.staleAt) return undefined
    return entry.overrides
  }

  keepFeatureOverrides (id: string, overrides: FeatureOverrides, seen: string, now: number) {
    this.features.set(id, { overrides, seen, staleAt: staleAfter(now) })
  }

  /** Redis came back (or was replaced): marker updates may have been lost meanwhile, so trust nothing held. */
  clear () {
    this.credentials.clear()
    this.stores.clear()
    this.features.clear()
  }
}

export function sameValues (a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
