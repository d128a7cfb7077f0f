import { defineModule } from '../../lib/module.js'
import { idempotencyRepository, type IdempotencyRepository } from './idempotency.repository.js'
import { idempotencyService, type IdempotencyService } from './idempotency.service.js'

export { CLAIM_LEASE_MS, KEY_TTL_MS, type Claim, type IdempotencyService, type Outcome } from './idempotency.service.js'

declare module '../../lib/module.js' {
  interface Services {
    idempotencyRepo: IdempotencyRepository
    /** The `Idempotency-Key` header's claims and kept answers (applied by pipeline/idempotency-key.ts). */
    idempotencyKeys: IdempotencyService
  }
}

/** docs/contract/api-conventions.md#idempotent-requests. No routes: the pipeline applies it to every route that takes the key. */
export const manifest = defineModule({
  name: 'idempotency',
  services: {
    idempotencyRepo: ({ db }) => idempotencyRepository(db),
    idempotencyKeys: ({ idempotencyRepo, clock, config }) =>
      idempotencyService({ repo: idempotencyRepo, clock, secretKey: config.secretKey })
  }
})
