/**
 * For the benches' "written to constantly" targets: moves the named markers (lib/freshness.ts keys) every
 * millisecond, as a store whose reviews and events are written all the time would, so no kept answer survives
 * from one read to the next and every read goes to the database. Runs until killed.
 */
import { Redis } from 'ioredis'
import { base62 } from '../src/lib/ids.js'

const [url, ...keys] = process.argv.slice(2)
const redis = new Redis(url)
let n = 0
setInterval(() => {
  const value = `churn.${n++}.${base62(6)}`
  for (const key of keys) redis.set(key, value, 'PX', 600_000).catch(() => {})
}, 1)
console.log('churning')
