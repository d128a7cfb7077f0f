/**
 * The composition root: every repository and service is built here, once, from { db, clock, config, redis, hash,
 * mailer }. The app (through plugins/services.ts), the background jobs (src/jobs.ts, src/worker.ts), the CLI, the
 * first-run seed, the test factories and the benches all take them from here instead of building their own, so a
 * change to how one is made is a change to this file only.
 */
import type { Knex } from 'knex'
import type { Redis } from 'ioredis'
import type { Config } from './config.js'
import type { Clock } from './lib/clock.js'
import { mailTransport, type MailTransport } from './lib/mail.js'
import { defaultHasher, type PasswordHasher } from './lib/passwords.js'
import { freshness as markers } from './lib/freshness.js'
import type { Log } from './types.js'
import { auditRepository } from './modules/audit/audit.repository.js'
import { peopleRepository } from './modules/account/people.repository.js'
import { storesRepository } from './modules/account/stores.repository.js'
import { accountService } from './modules/account/account.service.js'
import { bootstrapService } from './modules/account/bootstrap.service.js'
import { operatorService } from './modules/account/operator.service.js'
import { apiKeysRepository } from './modules/api-keys/api-keys.repository.js'
import { apiKeysService } from './modules/api-keys/api-keys.service.js'
import { eventLog, eventsRepository, parseEventId } from './modules/events/events.repository.js'
import { eventsService } from './modules/events/events.service.js'
import { productsRepository } from './modules/products/products.repository.js'
import { productsService } from './modules/products/products.service.js'
import { ordersRepository } from './modules/orders/orders.repository.js'
import { ordersService } from './modules/orders/orders.service.js'
import { reviewRequestScheduler } from './modules/orders/review-request.scheduler.js'
import { reviewsRepository } from './modules/reviews/reviews.repository.js'
import { reviewsService } from './modules/reviews/reviews.service.js'
import { importsRepository } from './modules/imports/imports.repository.js'
import { importsService } from './modules/imports/imports.service.js'
import { uploadsRepository } from './modules/uploads/uploads.repository.js'
import { uploadsService } from './modules/uploads/uploads.service.js'
import { outboundWebhooksService } from './modules/outbound-webhooks/outbound-webhooks.service.js'
import { hooksService } from './modules/connectors/hooks/hooks.service.js'
import { triggersRepository } from './modules/connectors/triggers/triggers.repository.js'
import { triggersService } from './modules/connectors/triggers/triggers.service.js'
import { connectionsService } from './modules/connectors/connections/connections.service.js'
import { toItem } from './modules/connectors/items.js'
import { invitationsRepository } from './modules/admin/invitations.repository.js'
import { invitationsService } from './modules/admin/invitations.service.js'
import { grantsRepository } from './modules/connectors/connections/grants.repository.js'
import { oauthClients } from './modules/connectors/connections/oauth-clients.repository.js'
import { subscriptionsRepository } from './delivery/subscriptions.repository.js'
import { outboxRepository } from './delivery/outbox.repository.js'
import { deliveryWorker, type WorkerOptions } from './delivery/worker.js'

export interface ServiceDeps {
  db: Knex
  clock: Clock
  config: Config
  /** null: no Redis (rate limits and delivery throttles stay per process). */
  redis: Redis | null
  /** Namespace of this deployment's Redis keys. */
  redisPrefix?: string
  /** argon2id at production cost unless given (tests pass a cheap one). */
  hash?: PasswordHasher
  /** Made from config (SMTP_URL or the local outbox) unless given; one made here is closed by `close()`. */
  mailer?: MailTransport
  /** Where background work reports; silent unless given. */
  log?: Log
}

const SILENT: Log = { info () {}, warn () {}, error () {} }

export function buildServices (deps: ServiceDeps) {
  const { db, clock, config } = deps
  const hash = deps.hash ?? defaultHasher
  const mailer = deps.mailer ?? mailTransport(config, clock)
  const log = deps.log ?? SILENT
  const { secretKey, publicUrl, webhookAllowPrivate: allowPrivate } = config

  /** Generation markers every instance reads in its limiter call; changes that refuse requests bump them. */
  const freshness = markers(deps.redis, `${deps.redisPrefix ?? 'eh:'}`, (obj, msg) => log.warn(obj, msg))

  // Repositories: knex queries only.
  const people = peopleRepository(db)
  const stores = storesRepository(db)
  const audit = auditRepository(db, clock)
  /** Appends events in the writer's transaction; listeners (the outbox fan-out) run there too. */
  const events = eventLog(clock)
  const eventHistory = eventsRepository(db)
  const subscriptions = subscriptionsRepository(db)
  const outbox = outboxRepository(db, subscriptions)
  const grants = grantsRepository(db)
  const clients = oauthClients(db, clock)
  const repos = {
    apiKeys: apiKeysRepository(db),
    products: productsRepository(db),
    orders: ordersRepository(db),
    reviews: reviewsRepository(db),
    imports: importsRepository(db),
    uploads: uploadsRepository(db),
    triggers: triggersRepository(db),
    invitations: invitationsRepository(db)
  }

  // Services: the rules, each built once from the repositories above.
  const apiKeys = apiKeysService({ db, repo: repos.apiKeys, audit, clock, fresh: freshness, log })
  const bootstrap = bootstrapService({ db, people, stores, audit, keys: apiKeys, clock, hash, fresh: freshness })
  const operator = operatorService({ db, people, stores, audit, keys: apiKeys, clock, hash })
  const uploads = uploadsService({ repo: repos.uploads, dataDir: config.dataDir, publicUrl, clock })
  const products = productsService({ db, repo: repos.products, events, clock })
  const reviews = reviewsService({ db, repo: repos.reviews, products: repos.products, uploads, events, clock, secretKey })
  const orders = ordersService({
    db,
    repo: repos.orders,
    products: repos.products,
    events,
    clock,
    reviewRequestDelayMs: config.reviewRequestDelayHours * 3_600_000,
    onWritten: (trx, store, rows) => reviews.reverify(trx, store, rows)
  })
  const reviewRequests = reviewRequestScheduler({ db, repo: repos.orders, products: repos.products, events, mail: mailer, clock })
  const imports = importsService({ db, repo: repos.imports, reviews: repos.reviews, events, clock })
  const outboundWebhooks = outboundWebhooksService({ subscriptions, outbox, events: eventHistory, clock, secretKey, allowPrivate })
  const connectorHooks = hooksService({ subscriptions, clock, secretKey, allowPrivate })
  const connectorTriggers = triggersService({ repo: repos.triggers, people })
  const connections = connectionsService({ db, grants, clients, audit, clock, fresh: freshness })
  // Removing a member ends their OAuth connections (decisions.md section 10).
  const account = accountService({ db, people, stores, audit, clock, fresh: freshness, endPersonConnections: connections.endPersonConnections })
  const eventHistoryService = eventsService({ events: eventHistory })
  const invitations = invitationsService({ db, repo: repos.invitations, people, audit, clock, hash, publicUrl, send: mailer.direct })

  // Every appended event fans out into the outbox in the writer's own transaction (decisions.md section 8).
  events.onAppended(async (trx, appended) => {
    await outbox.fanOut(trx, appended.map((event) => ({ seq: parseEventId(event.id)!, orgId: event.orgId, storeEnvId: event.storeEnvId, type: event.type })), clock())
  })

  /** The delivery pipeline shared by outbound webhooks and connector hooks; jobs and tests start workers from it. */
  const delivery = {
    subscriptions,
    outbox,
    createWorker: (options: Partial<WorkerOptions> = {}) => deliveryWorker({
      outbox, clock, secretKey, publicUrl, allowPrivate, redis: deps.redis, redisPrefix: deps.redisPrefix ?? 'eh:', log, hookItem: toItem
    }, options)
  }

  return {
    db,
    clock,
    config,
    hash,
    mailer,
    log,
    freshness,
    people,
    stores,
    audit,
    events,
    eventHistory,
    eventHistoryService,
    grants,
    clients,
    repos,
    apiKeys,
    account,
    bootstrap,
    operator,
    uploads,
    products,
    reviews,
    orders,
    reviewRequests,
    imports,
    outboundWebhooks,
    connectorHooks,
    connectorTriggers,
    connections,
    invitations,
    delivery,
    /** Lets go of what was made here (the mailer); the db and Redis belong to whoever passed them in. */
    async close () {
      if (!deps.mailer) mailer.close()
    }
  }
}

export type Services = ReturnType<typeof buildServices>
