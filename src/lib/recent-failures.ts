import type { Redis } from 'ioredis'

/** How many failed request ids are kept per credential, and for how long: enough context for a support request. */
export const KEPT_FAILURES = 20
const KEPT_MS = 7 * 86_400_000
const MAX_CREDENTIALS = 10_000

/**
 * The ids of a credential's most recent failed requests (4xx and 5xx answers), newest first, so a support request
 * can carry them (docs/contract/resources.md#support). A Redis list per credential when Redis is configured, shared
 * by every instance; otherwise a bounded map in memory. Recording never fails a request: a Redis error is dropped.
 */
export interface RecentFailures {
  record: (credential: string, requestId: string) => Promise<void>
  list: (credential: string) => Promise<string[]>
}

export function recentFailures (redis: Redis | null, prefix: string): RecentFailures {
  if (redis) {
    const keyOf = (credential: string) => `${prefix}fail:${credential}`
    return {
      async record (credential, requestId) {
        const key = keyOf(credential)
        await redis.multi().lpush(key, requestId).ltrim(key, 0, KEPT_FAILURES - 1).pexpire(key, KEPT_MS).exec().catch(() => null)
      },
      async list (credential) {
        return await redis.lrange(keyOf(credential), 0, KEPT_FAILURES - 1).catch(() => [])
      }
    }
  }
  const lists = new Map<string, string[]>()
  return {
    async record (credential, requestId) {
      const list = [requestId, ...(lists.get(credential) ?? [])].slice(0, KEPT_FAILURES)
      lists.delete(credential)
      lists.set(credential, list)
      if (lists.size > MAX_CREDENTIALS) lists.delete(lists.keys().next().value!)
    },
    async list (credential) {
      return [...(lists.get(credential) ?? [])]
    }
  }
}
