/** oidc-provider's store of the request it is handling (lib/helpers/als.js, not in its published types). */
declare module 'oidc-provider/lib/helpers/als.js' {
  import type { AsyncLocalStorage } from 'node:async_hooks'
  const store: AsyncLocalStorage<unknown>
  export default store
}
