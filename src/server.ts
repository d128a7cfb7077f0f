import { inspect } from 'node:util'
import { loadConfigOrExit } from './config.js'
import { createKnex, migrateLatest } from './db.js'
import { maskUrlsIn } from './lib/masked-url.js'
import { recordDatabaseInUse } from './cli/database-in-use.js'
import type { seedDemo } from './seed.js'

async function main () {
  const config = loadConfigOrExit()
  // Loaded only once the configuration is valid: oidc-provider warns on stderr at import time (it prefers
  // Node 22), and a bad configuration must stop the start with exactly one line naming the setting.
  const { buildApp } = await import('./app.js')
  const { seedDemo } = await import('./seed.js')
  const db = createKnex(config)
  await migrateLatest(db)
  recordDatabaseInUse(config)
  const app = await buildApp(config, { db })
  app.addHook('onClose', async () => { await db.destroy() })
  const demo = config.databaseUrl ? null : await seedDemo(app.services)
  await app.listen({ port: config.port, host: config.host })

  console.log(`\nEvidence Hub is listening on ${config.publicUrl}`)
  console.log(`  API        ${config.publicUrl}/v1   (docs: ${config.publicUrl}/docs)`)
  console.log(`  OAuth      ${config.publicUrl}/oauth/.well-known/openid-configuration`)
  console.log(`  Admin      ${config.publicUrl}/admin`)
  if (demo) printDemo(config.publicUrl, demo)

  let closing = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (closing) return
      closing = true
      app.log.info({ signal }, 'shutting down')
      app.close().then(() => process.exit(0), (err) => { app.log.error({ err }, 'shutdown failed'); process.exit(1) })
    })
  }
}

function printDemo (url: string, demo: NonNullable<Awaited<ReturnType<typeof seedDemo>>>) {
  console.log('\nFirst run: a demo organization was created. These secrets are shown once.')
  console.log(`  Owner      ${demo.owner.email} / ${demo.owner.password}`)
  console.log(`  Store      ${demo.store.id}`)
  console.log(`  API key    ${demo.apiKey.secret}`)
  console.log(`\n  curl -H "Authorization: Bearer ${demo.apiKey.secret}" -H "x-store-env-id: ${demo.store.id}" ${url}/v1/account/stores\n`)
}

main().catch((err) => {
  // A connection error at start may carry the URL it was given (mysql2's and ioredis's "Invalid URL" do).
  console.error(maskUrlsIn(inspect(err)))
  process.exit(1)
})
