/**
 * `npm run worker`: the background jobs of src/jobs.ts in a process of their own, for deployments that run the web
 * instances with WORKERS=false. Same configuration as the server; nothing listens on a port.
 */
import { inspect } from 'node:util'
import { loadConfigOrExit } from './config.js'
import { createKnex, migrateLatest } from './db.js'
import { maskUrlsIn } from './lib/masked-url.js'
import { systemClock } from './lib/clock.js'
import { consoleLog } from './lib/log.js'
import { connectRedis } from './lib/redis.js'
import { buildServices } from './services.js'
import { startJobs } from './jobs.js'

async function main () {
  const config = loadConfigOrExit()
  const log = consoleLog(config.logLevel)
  const db = createKnex(config)
  await migrateLatest(db)
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, log.warn) : null
  const services = buildServices({ db, clock: systemClock, config, redis, log })
  const stopJobs = startJobs(services)

  let closing = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (closing) return
      closing = true
      log.info({ signal }, 'stopping background jobs')
      stopJobs()
        .then(() => services.close())
        .then(() => { redis?.disconnect(); return db.destroy() })
        .then(() => process.exit(0), (err: Error) => { log.error({ err: { message: err.message } }, 'shutdown failed'); process.exit(1) })
    })
  }
}

main().catch((err) => {
  // A connection error at start may carry the URL it was given (mysql2's and ioredis's "Invalid URL" do).
  console.error(maskUrlsIn(inspect(err)))
  process.exit(1)
})
