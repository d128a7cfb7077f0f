/**
 * The server side of `npm run bench:mcp`, in its own process as `npm start` runs it: the real app (MySQL + Redis,
 * its own bench database) on one port and a bare fastify route on another. Reports { appUrl, bareUrl, storeId,
 * keys } to the parent over IPC, and its RSS and CPU time (µs) when asked.
 */
import { buildApp } from '../src/app.js'
import { bareServer, seedBenchKeys } from './lib.js'
import { benchSetup } from './catalog-lib.js'

/** Per-credential limits are 50 per 10 s: enough keys that the run measures the endpoint, never a 429. */
const KEY_COUNT = Number(process.env.BENCH_KEYS ?? 2000)

const { config, db, services } = await benchSetup(1)
const { tenant, secrets } = await seedBenchKeys(services, KEY_COUNT, 'editor')
const app = await buildApp(config, { db, services, logger: false, redisPrefix: 'eh:bench:mcp:' })
const appUrl = await app.listen({ port: 0, host: '127.0.0.1' })
const bare = await bareServer()
const products = Array.from({ length: 100 }, (_, i) => ({ platformProductId: `p${i}`, title: `Product ${i}`, url: `https://shop.example/p/${i}` }))
await app.inject({ method: 'PUT', url: '/v1/products', headers: { authorization: `Bearer ${secrets[0]}`, 'x-store-env-id': tenant.store.id }, payload: { products } })

process.on('message', (message) => {
  if (message === 'rss') process.send!({ rss: process.memoryUsage().rss })
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage()
    process.send!({ cpu: user + system })
  }
})
process.on('disconnect', () => {
  Promise.all([app.close(), bare.app.close()]).then(() => db.destroy()).finally(() => process.exit(0))
})
process.send!({ appUrl, bareUrl: bare.url, storeId: tenant.store.id, keys: secrets })
