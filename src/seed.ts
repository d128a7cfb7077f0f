import type { Knex } from 'knex'
import type { Config } from './config.js'
import { systemClock } from './lib/clock.js'
import { bootstrapService } from './modules/account/bootstrap.service.js'

/** First run of the embedded default: a demo tenant to try the API with at once. Nothing on later runs. */
export async function seedDemo (db: Knex, config: Config) {
  const bootstrap = bootstrapService(db, systemClock)
  if (!await bootstrap.isEmpty()) return null
  return bootstrap.bootstrap({
    org: 'Demo Organization',
    store: 'Demo Store',
    owner: 'owner@demo.example',
    plan: 'growth',
    // PUBLIC_URL may carry a path; an origin is scheme, host and port only.
    origins: [new URL(config.publicUrl).origin, 'http://localhost:5173']
  })
}
