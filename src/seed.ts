import type { Services } from './services.js'

/** First run of the embedded default: a demo tenant to try the API with at once. Nothing on later runs. */
export async function seedDemo ({ bootstrap, config }: Pick<Services, 'bootstrap' | 'config'>) {
  if (!await bootstrap.isEmpty()) return null
  return bootstrap.bootstrap({
    org: 'Demo Organization',
    store: 'Demo Store',
    owner: 'owner@demo.example',
    plan: 'growth',
    origins: [config.publicUrl, 'http://localhost:5173']
  })
}
