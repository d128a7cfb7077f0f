import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import type { Knex } from 'knex'
import type { Redis } from 'ioredis'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './config.js'
import { systemClock, type Clock } from './lib/clock.js'
import { maskUrlsIn } from './lib/masked-url.js'
import type { MailTransport } from './lib/mail.js'
import { defaultHasher, type PasswordHasher } from './lib/passwords.js'
import { buildServices, type ServiceDeps, type Services } from './services.js'
import { startJobs } from './jobs.js'
import configPlugin from './plugins/config.js'
import dbPlugin from './plugins/db.js'
import redisPlugin from './plugins/redis.js'
import errorHandler, { clientErrorHandler, frameworkErrors } from './plugins/error-handler.js'
import { MAX_PARAM_LENGTH } from './schemas.js'
import { addApiFormats } from './lib/formats.js'
import { reusedSerializers, typedJsonBodies } from './compilers.js'
import rateLimit from './plugins/rate-limit.js'
import servicesPlugin from './plugins/services.js'
import pipeline from './pipeline/index.js'
import conditionalRequests from './plugins/conditional-requests.js'
import session from './plugins/session.js'
import openapi from './plugins/openapi.js'
import storefront from './plugins/storefront.js'
import strictInput from './plugins/strict-input.js'
import mcp from './modules/mcp/index.js'
import { MODULES } from './modules/index.js'
import type { ModuleManifest } from './lib/module.js'
import requestIds from './plugins/request-ids.js'
import { requestIdFrom } from './lib/error-format.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The modules the app is made of (src/modules/index.ts). */
    modules: readonly ModuleManifest[]
  }
}

export interface AppDeps {
  clock?: Clock
  /** A knex handle the caller owns (tests share one); otherwise one is made from config and closed with the app. */
  db?: Knex
  /** null: no Redis even if configured; undefined: from config. */
  redis?: Redis | null
  /** Prefix of Redis keys; tests give each app its own unless they test sharing. */
  redisPrefix?: string
  logger?: boolean | object
  /** How passwords are hashed; argon2id at its default cost unless given (tests pass a cheap one). */
  hash?: PasswordHasher
  /** The mail transport; made from config (SMTP_URL or the local outbox) unless given. */
  mailer?: MailTransport
  /** Services built by the caller from the same db (a process that also runs jobs); otherwise built here. */
  services?: Services
  /** DNS for sending-domain checks (tests point one at a local server); the system's resolvers unless given. */
  resolver?: ServiceDeps['resolver']
  /** How long a plugin may take to load (fastify's 10 s unless given): the suite's processes can starve for longer. */
  pluginTimeout?: number
}

const REDACT = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]']

/**
 * URLs that carry a token whose holder it authorizes (an invitation link, a mail's unsubscribe link, a video's
 * signed upload URL, an ID token sent back at logout): the token never reaches a log.
 */
const TOKEN_IN_URL = [
  /^(\/admin\/invitations\/)[^/?#]+/,
  /^(\/v1\/email\/unsubscribe\/)[^/?#]+/,
  /([?&](?:token|id_token_hint)=)[^&#]*/g
]

export function redactUrl (url: string): string {
  return TOKEN_IN_URL.reduce((out, pattern) => out.replace(pattern, '$1[redacted]'), url)
}

/** fastify's own request serializer, with tokens in paths masked. */
function serializeRequest (request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort
  }
}

/**
 * The redaction applies to every logger, also one a caller (a test, a bench) passes in; every line, whatever logged
 * it (an error's message, stack or fields), has the passwords of the URLs in it masked (lib/masked-url.ts).
 */
function loggerOptions (config: Config, logger: AppDeps['logger']) {
  if (logger === false) return false
  const safe = {
    level: config.logLevel,
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: { req: serializeRequest },
    hooks: { streamWrite: maskUrlsIn }
  }
  return typeof logger === 'object' ? { ...safe, ...logger } : safe
}

export async function buildApp (config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config, deps.logger),
    trustProxy: config.trustProxy,
    bodyLimit: 5 * 1024 * 1024,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Answers fastify and Node would otherwise write in their own shape (docs/contract/api-conventions.md#errors).
    frameworkErrors,
    clientErrorHandler,
    return503OnClosing: false,
    ...(deps.pluginTimeout === undefined ? {} : { pluginTimeout: deps.pluginTimeout }),
    // The id a caller quotes to support (plugins/request-ids.ts): the client's own X-Request-Id when it is safe to
    // echo and log, else one of ours, unique across instances and restarts.
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true }, onCreate: addApiFormats },
    schemaController: { compilersFactory: { buildValidator: typedJsonBodies() as never, buildSerializer: reusedSerializers() as never } }
  }).withTypeProvider<TypeBoxTypeProvider>()
  nameEveryPlugin(app)

  await app.register(configPlugin, { config, clock: deps.clock ?? systemClock, hash: deps.hash ?? defaultHasher })
  await app.register(errorHandler)
  await app.register(dbPlugin, { db: deps.db })
  await app.register(redisPlugin, { redis: deps.redis, prefix: deps.redisPrefix })
  const services = deps.services ?? buildServices({
    db: app.db,
    clock: app.clock,
    config,
    redis: app.redis,
    redisPrefix: app.redisPrefix,
    hash: app.hash,
    mailer: deps.mailer,
    log: app.log,
    resolver: deps.resolver
  })
  await app.register(servicesPlugin, { services, owned: !deps.services })
  // Before the pipeline: a refused request still gets its x-request-id.
  await app.register(requestIds)
  await app.register(rateLimit)
  await app.register(pipeline)
  // Before openapi and the modules: its onRoute hook marks the single-resource GETs and wraps the writes' If-Match.
  await app.register(conditionalRequests)
  await app.register(session)
  await app.register(openapi)
  await app.register(storefront)
  // Before the modules: its onRoute hook closes each /v1 route's body and querystring to unknown fields.
  await app.register(strictInput)
  // Before the modules: its onRoute hook turns each of their /v1 routes into an MCP tool.
  await app.register(mcp)

  // Every module's routes, in the order of src/modules/index.ts; the admin reads the list for the modules' pages.
  app.decorate('modules', MODULES)
  for (const module of MODULES) {
    for (const { plugin, prefix } of module.routes ?? []) await app.register(plugin, prefix ? { prefix } : {})
  }

  if (config.workers) runJobsWith(app, services)
  return app
}

const DISPLAY_NAME = Symbol.for('fastify.display-name')

/**
 * fastify names a plugin that has no display name by searching require.cache for a module that exports it, twice per
 * registration and over every loaded CommonJS module (thousands here). With a hundred plugins that search was most of
 * the time it takes to build the app, in `npm start` and in every test. Each plugin is named by its function instead.
 * Child contexts inherit `register` from the root instance, so this one wrapper covers every registration.
 */
function nameEveryPlugin (app: FastifyInstance) {
  const register = app.register
  app.register = function (this: FastifyInstance, plugin: unknown, options?: unknown) {
    if (typeof plugin === 'function' && !(DISPLAY_NAME in plugin)) {
      Object.defineProperty(plugin, DISPLAY_NAME, { value: plugin.name || 'anonymous plugin' })
    }
    return register.call(this, plugin as never, options as never)
  } as typeof app.register
}

/** Background jobs inside the web process (WORKERS, on by default); `npm run worker` runs the same list alone. */
function runJobsWith (app: FastifyInstance, services: Services) {
  let stop: (() => Promise<void>) | null = null
  app.addHook('onReady', async () => { stop = startJobs(services) })
  app.addHook('onClose', async () => { await stop?.() })

  return app
}
