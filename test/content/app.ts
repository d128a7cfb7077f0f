import tap from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.js'

/**
 * A clock that moves a second each time it is read, so that one key's many calls in a test stay inside the per-key
 * budget of docs/contract/plans-and-limits.md#request-limits (these tests are about content, not limits) and every
 * write gets a later updatedAt than the one before.
 */
export function tickingClock (start = Date.parse('2026-11-23T12:00:00Z')) {
  let now = start
  return () => (now += 1000)
}

let app: Promise<FastifyInstance> | undefined

/** One app per test file (a file imports this module once), on the ticking clock. */
export function contentApp (): Promise<FastifyInstance> {
  app ??= build(tap, { clock: tickingClock() })
  return app
}
