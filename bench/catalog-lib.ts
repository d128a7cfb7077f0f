/** bench:bulk's set-up: a migrated MySQL database of its own, a tenant, many keys. */
import knex from 'knex'
import { benchConfig, seedBenchKeys } from './lib.js'
import { createKnex, migrateLatest } from '../src/db.js'
import { systemClock } from '../src/lib/clock.js'
import { buildServices } from '../src/services.js'

/** Never DATABASE_URL: the bench drops and recreates its database, so it only takes one whose name starts with bench. */
export const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/bench_catalog'

export async function benchSetup (keys: number) {
  const url = new URL(DATABASE_URL)
  if (!/^\/bench\w*$/.test(url.pathname)) throw new Error('BENCH_DATABASE_URL must name a database called bench…')
  const server = knex({
    client: 'mysql2',
    connection: {
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password)
    }
  })
  // Our own database, rebuilt on each run so figures do not depend on earlier runs.
  await server.raw(`DROP DATABASE IF EXISTS \`${url.pathname.slice(1)}\``)
  await server.raw(`CREATE DATABASE \`${url.pathname.slice(1)}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  await server.destroy()
  const config = benchConfig(DATABASE_URL)
  const db = createKnex(config)
  await migrateLatest(db)
  // Built once here and handed to buildApp, so the bench's seed and the app share one set of services.
  const services = buildServices({ db, clock: systemClock, config, redis: null })
  const { tenant, secrets } = await seedBenchKeys(services, keys, 'editor')
  return { config, db, services, secrets, orgId: tenant.organization.id, storeId: tenant.store.id }
}

export function percentile (sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : 0
}
