import Fastify, { type FastifyInstance } from 'fastify'
import type { Knex } from 'knex'
import type { Redis } from 'ioredis'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { AjvCompiler } from '@fastify/ajv-compiler'
import type { Config } from './config.js'
import { systemClock, type Clock } from './lib/clock.js'
import configPlugin from './plugins/config.js'
import dbPlugin from './plugins/db.js'
import redisPlugin from './plugins/redis.js'
import errorHandler, { clientErrorHandler, frameworkErrors } from './plugins/error-handler.js'
import { MAX_PARAM_LENGTH } from './schemas.js'
import { addApiFormats } from './lib/formats.js'
import { storableOnly } from './lib/storable.js'
import rateLimit from './plugins/rate-limit.js'
import auth from './plugins/auth.js'
import tenancy from './plugins/tenancy.js'
import audit from './plugins/audit.js'
import events from './plugins/events.js'
import session from './plugins/session.js'
import webhooks from './plugins/webhooks.js'
import openapi from './plugins/openapi.js'
import storefront from './plugins/storefront.js'
import health from './modules/health/index.js'
import account from './modules/account/index.js'
import apiKeys from './modules/api-keys/index.js'
import products from './modules/products/index.js'
import orders from './modules/orders/index.js'
import reviews from './modules/reviews/index.js'
import imports from './modules/imports/index.js'
import uploads from './modules/uploads/index.js'
import outboundWebhooks from './modules/outbound-webhooks/index.js'
import connectorHooks from '../connectors/hooks/index.js'
import oauth from '../oauth/index.js'
import connectorTriggers from '../connectors/triggers/index.js'
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

// @fastify/ajv-compiler's typings cover only its own pool shapes; these are the parts used here.
type RouteValidator = (route: { schema: unknown, method: string, url: string, httpPart?: string }) => unknown
type ValidatorFactory = (external: unknown, options: { customOptions?: Record<string, unknown> }) => RouteValidator

/**
 * JSON bodies under /v1 are validated as sent: `"scopes": "read"` or `"name": 123` is a 400, not silently turned
 * into `["read"]` or `"123"`. Querystrings, params and headers (all strings on the wire), and the form posts of the
 * admin and OAuth screens, keep ajv's type coercion. Whatever passes must also be storable (lib/storable.ts).
 */
function typedJsonBodies (): ValidatorFactory {
  const coercing = AjvCompiler() as unknown as ValidatorFactory
  const exact = AjvCompiler() as unknown as ValidatorFactory
  return (external, options) => {
    const loose = coercing(external, options)
    const strict = exact(external, { ...options, customOptions: { ...options.customOptions, coerceTypes: false } })
    return (route) => storableOnly((route.httpPart === 'body' && route.url.startsWith('/v1/') ? strict : loose)(route) as Parameters<typeof storableOnly>[0])
  }
}

export async function buildApp (config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' } },
    trustProxy: config.trustProxy,
    bodyLimit: 5 * 1024 * 1024,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Answers fastify and Node would otherwise write in their own shape (decisions.md section 3).
    frameworkErrors,
    clientErrorHandler,
    return503OnClosing: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true }, onCreate: addApiFormats },
    schemaController: { compilersFactory: { buildValidator: typedJsonBodies() as never } }
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
  await app.register(storefront)

  await app.register(health, { prefix: '/v1' })
  await app.register(account, { prefix: '/v1' })
  await app.register(apiKeys, { prefix: '/v1' })
  await app.register(products, { prefix: '/v1' })
  await app.register(orders, { prefix: '/v1' })
  await app.register(reviews, { prefix: '/v1' })
  await app.register(imports, { prefix: '/v1' })
  await app.register(uploads, { prefix: '/v1' })
  await app.register(outboundWebhooks, { prefix: '/v1' })
  await app.register(connectorHooks, { prefix: '/v1' })
  await app.register(oauth)
  await app.register(connectorTriggers, { prefix: '/v1' })
  await app.register(admin, { prefix: '/admin' })

  return app
}
