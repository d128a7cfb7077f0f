import { AsyncLocalStorage } from 'node:async_hooks'
// The provider's own store of its current request: the very module instance the provider imports (the package
// declares no exports map, and oauth/oidc-provider-als.d.ts types it).
import providerStore from 'oidc-provider/lib/helpers/als.js'

/**
 * The provider's request being handled, for code the provider calls without it (the adapter's Grant.find).
 * One for the process, as the provider's own is.
 */
export const providerRequest = new AsyncLocalStorage<object>()

/**
 * On Node 20 an AsyncLocalStorage follows async work through async_hooks: from a store's first `run()` until it is
 * disabled, every promise the process makes pays a hook, whatever request it serves. The provider's store and ours
 * would stay enabled from the first /oauth request on, which cost every REST request after it ~7 % of the service's
 * CPU (a profile of GET /v1/features after one discovery request). So both are enabled only while a provider
 * request is in flight: counted here, process-wide (the stores are), and disabled when the last one ends; `run()`
 * enables them again for the next one.
 */
let inFlight = 0

export function providerRequestStarted (): void {
  inFlight++
}

export function providerRequestEnded (): void {
  inFlight--
  if (inFlight > 0) return
  inFlight = 0
  providerRequest.disable()
  providerStore.disable()
}

/** Whether the stores are enabled (a test's view of the above). */
export function contextTracking (): boolean {
  return (providerStore as unknown as { enabled: boolean }).enabled || (providerRequest as unknown as { enabled: boolean }).enabled
}
