import Fastify, { type FastifyInstance } from 'fastify'
import type { Knex } from 'knex'
import type { Redis } from 'ioredis'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './config.js'
import { systemClock, type Clock } from './lib/clock.js'
import configPlugin from './plugins/config.js'
import dbPlugin from './plugins/db.js'
import redisPlugin from './plugins/redis.js'
import errorHandler from './plugins/error-handler.js'
import rateLimit from './plugins/rate-limit.js'
import auth from './plugins/auth.js'
import tenancy from './plugins/tenancy.js'
import audit from './plugins/audit.js'
import events from './plugins/events.js'
import session from './plugins/session.js'
import webhooks from './plugins/webhooks.js'
import openapi from './plugins/openapi.js'
import health from './modules/health/index.js'
import account from './modules/account/index.js'
import apiKeys from './modules/api-keys/index.js'
import outboundWebhooks from './modules/outbound-webhooks/index.js'
import connectorHooks from '../connectors/hooks/index.js'
import oauth from '../oauth/index.js'
import admin from './modules/admin/index.js'

export interface AppDeps {
  clock?: Clock
  /** A knex handle the caller owns (tests share one); otherwise one is made from config and closed with the app. */
  db?: Knex
  /** null: no Redis even if configured; undefined: from config. */
  redis?: Redis | null
  /** Prefix of Redis keys; tests give each app its own unless they test sharing. */
  redisPrefix?: string
  logger?: boolean | object
}

const REDACT = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]']

export async function buildApp (config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' } },
    trustProxy: config.trustProxy,
    bodyLimit: 5 * 1024 * 1024,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } }
  }).withTypeProvider<TypeBoxTypeProvider>()

  await app.register(configPlugin, { config, clock: deps.clock ?? systemClock })
  await app.register(errorHandler)
  await app.register(dbPlugin, { db: deps.db })
  await app.register(redisPlugin, { redis: deps.redis, prefix: deps.redisPrefix })
  await app.register(rateLimit)
  await app.register(auth)
  await app.register(tenancy)
  await app.register(audit)
  await app.register(events)
  await app.register(session)
  await app.register(webhooks)
  await app.register(openapi)

  await app.register(health, { prefix: '/v1' })
  await app.register(account, { prefix: '/v1' })
  await app.register(apiKeys, { prefix: '/v1' })
  await app.register(outboundWebhooks, { prefix: '/v1' })
  await app.register(connectorHooks, { prefix: '/v1' })
  await app.register(oauth)
  await app.register(admin, { prefix: '/admin' })

  return app
}
