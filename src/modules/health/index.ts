import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { defineModule } from '../../lib/module.js'

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Object({
    database: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
    redis: Type.Union([Type.Literal('ok'), Type.Literal('error'), Type.Literal('not_configured')])
  }),
  message: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  requestId: Type.Optional(Type.String({ description: 'With a 503: the request\'s id, as every error body carries' }))
})

const PROBE_TIMEOUT_MS = 2000

function withTimeout<T> (promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS).unref())
  ])
}

/**
 * docs/contract/operations.md#health. Only the database decides the status: with Redis down the service still serves
 * (rate limits fall back per instance), so Redis is reported but does not fail the probe.
 */
const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: {
      tags: ['health'],
      summary: 'Liveness and dependencies; 503 when the database is unreachable',
      response: { 200: Health, 503: Health }
    },
    config: { auth: 'public', errors: ['service_unavailable'] }
  }, async (request, reply) => {
    const database = await withTimeout(app.db.raw('select 1')).then(() => 'ok' as const, () => 'error' as const)
    const redis = app.redis
      ? await withTimeout(app.redis.ping()).then(() => 'ok' as const, () => 'error' as const)
      : 'not_configured' as const
    if (database !== 'ok') {
      return reply.status(503).send({
        status: 'unavailable',
        checks: { database, redis },
        message: 'The database is unreachable',
        code: 'service_unavailable',
        requestId: request.id
      })
    }
    return { status: 'ok' as const, checks: { database, redis } }
  })
}
export default health

export const manifest = defineModule({ name: 'health', routes: [{ plugin: health, prefix: '/v1' }] })
