/**
 * The composition root: every repository and service is built here, once, from { db, clock, config, redis, hash,
 * mailer }. Each module names what it provides and how it is made from the others (its manifest's `services`,
 * src/lib/module.ts); this file only registers them, builds them all and subscribes the modules' reactions. The app
 * (through plugins/services.ts), the background jobs (src/jobs.ts, src/worker.ts), the CLI, the first-run seed, the
 * test factories and the benches all take them from here instead of building their own.
 */
import type { Knex } from 'knex'
import type { Redis } from 'ioredis'
import { asFunction, asValue, createContainer, InjectionMode } from 'awilix'
import type { Config } from './config.js'
import type { Clock } from './lib/clock.js'
import { mailTransport, type MailTransport } from './lib/mail.js'
import { defaultHasher, type PasswordHasher } from './lib/passwords.js'
import { freshness as markers, type Freshness } from './lib/freshness.js'
import { domainEvents, type DomainBus, type DomainEventName } from './lib/domain-events.js'
import type { ModuleManifest, Overrides, Services } from './lib/module.js'
import { REDIS_PREFIX } from './lib/redis.js'
import { recentFailures, type RecentFailures } from './lib/recent-failures.js'
import type { Log } from './types.js'
import { MODULES } from './modules/index.js'

export type { Services } from './lib/module.js'

declare module './lib/module.js' {
  interface Services {
    db: Knex
    clock: Clock
    config: Config
    /** null: no Redis (rate limits and delivery throttles stay per process). */
    redis: Redis | null
    /** Namespace of this deployment's Redis keys. */
    redisPrefix: string
    hash: PasswordHasher
    mailer: MailTransport
    log: Log
    /** Generation markers every instance reads in its limiter call; changes that refuse requests bump them. */
    freshness: Freshness
    /** What modules tell each other (src/lib/domain-events.ts); the modules' reactions are subscribed to it. */
    bus: DomainBus
    /** The last failed requests, for support (lib/recent-failures.ts). */
    recentFailures: RecentFailures
    /** What the caller handed in for a module to use instead of its own (ServiceDeps). */
    overrides: Overrides
    /** Lets go of what was made here (the mailer); the db and Redis belong to whoever passed them in. */
    close: () => Promise<void>
  }
}

export interface ServiceDeps extends Overrides {
  db: Knex
  clock: Clock
  config: Config
  /** null: no Redis (rate limits and delivery throttles stay per process). */
  redis: Redis | null
  /** Namespace of this deployment's Redis keys; REDIS_PREFIX (or `eh:`) unless given. */
  redisPrefix?: string
  /** argon2id at production cost unless given (tests pass a cheap one). */
  hash?: PasswordHasher
  /** Made from config (SMTP_URL or the local outbox) unless given; one made here is closed by `close()`. */
  mailer?: MailTransport
  /** Where background work reports; silent unless given. */
  log?: Log
}

const SILENT: Log = { info () {}, warn () {}, error () {} }

export function buildServices (deps: ServiceDeps, modules: readonly ModuleManifest[] = MODULES): Services {
  const { db, clock, config, redis } = deps
  const mailer = deps.mailer ?? mailTransport(config, clock)
  const log = deps.log ?? SILENT
  const redisPrefix = deps.redisPrefix ?? config.redisPrefix ?? REDIS_PREFIX

  // PROXY: a factory receives the container and destructures what it names; awilix builds those first, once.
  const container = createContainer<Services>({ injectionMode: InjectionMode.PROXY, strict: true })
  container.register({
    db: asValue(db),
    clock: asValue(clock),
    config: asValue(config),
    redis: asValue(redis),
    redisPrefix: asValue(redisPrefix),
    hash: asValue(deps.hash ?? defaultHasher),
    mailer: asValue(mailer),
    log: asValue(log),
    freshness: asValue(markers(redis, redisPrefix, (obj, msg) => log.warn(obj, msg))),
    bus: asValue(domainEvents()),
    recentFailures: asValue(recentFailures(redis, redisPrefix)),
    overrides: asValue(deps),
    close: asValue(async () => { if (!deps.mailer) mailer.close() })
  })
  for (const module of modules) {
    for (const [name, factory] of Object.entries(module.services ?? {})) {
      if (container.hasRegistration(name)) throw new Error(`Module ${module.name} provides "${name}", which is already provided`)
      container.register(name, asFunction(factory as (services: Services) => unknown).singleton())
    }
  }

  // Everything is built now, not on first use: a missing or circular dependency fails at start, and the services are
  // a plain object (no lookup through the container on a request's path).
  const services = {} as Record<string, unknown>
  for (const name of Object.keys(container.registrations)) {
    try {
      services[name] = container.resolve(name)
    } catch (err) {
      throw new Error(`Could not build the service "${name}": ${(err as Error).message}`, { cause: err })
    }
  }
  const built = services as unknown as Services

  subscribeReactions(built.bus, modules, built)
  return built
}

/**
 * Each module subscribes its reactions, in the order of the list (the order in which reactions to one event run).
 * A reaction to an event no module says it emits would wait forever: it is refused here.
 */
function subscribeReactions (bus: DomainBus, modules: readonly ModuleManifest[], services: Services) {
  const emitted = new Set<DomainEventName>(modules.flatMap((module) => module.emits ?? []))
  for (const module of modules) {
    if (!module.reactions) continue
    const checked: DomainBus = {
      emit: bus.emit,
      on: (name, reaction) => {
        if (!emitted.has(name)) throw new Error(`Module ${module.name} reacts to "${name}", which no module emits`)
        return bus.on(name, reaction)
      }
    }
    module.reactions(checked, services)
  }
}
