import type { Services } from './services.js'

/** First run of the embedded default: a demo tenant to try the API with at once. Nothing on later runs. */
export async function seedDemo ({ bootstrap, config }: Pick<Services, 'bootstrap' | 'config'>) {
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
