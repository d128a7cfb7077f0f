/**
 * The composition root: every repository and service is built here, once, from { db, clock, config, redis, hash,
 * mailer }. The app (through plugins/services.ts), the background jobs (src/jobs.ts, src/worker.ts), the CLI, the
 * first-run seed, the test factories and the benches all take them from here instead of building their own, so a
 * change to how one is made is a change to this file only.
 */
import type { Knex } from 'knex'
import type { Redis } from 'ioredis'
import { BIGCOMMERCE_DEFAULTS, type Config } from './config.js'
import type { Clock } from './lib/clock.js'
import { mailTransport, type MailTransport } from './lib/mail.js'
import { defaultHasher, type PasswordHasher } from './lib/passwords.js'
import { afterCommit, freshness as markers, marker } from './lib/freshness.js'
import { domainEvents } from './lib/domain-events.js'
import { REDIS_PREFIX } from './lib/redis.js'
import type { Log } from './types.js'
import { auditRepository } from './modules/audit/index.js'
import { peopleRepository, storesRepository, accountService, bootstrapService, operatorService } from './modules/account/index.js'
import { apiKeysRepository, apiKeysService } from './modules/api-keys/index.js'
import { eventLog, eventsReactions, eventsRepository, type NewEvent, eventsService } from './modules/events/index.js'
import { productsReactions, productsRepository, productsService } from './modules/products/index.js'
import { ordersRepository, ordersService, reviewRequestScheduler } from './modules/orders/index.js'
import { reviewsReactions, reviewsRepository, reviewsService } from './modules/reviews/index.js'
import { importsRepository, importsService } from './modules/imports/index.js'
import { uploadsRepository, uploadsService, localDiskStorage, abandonedUploads, videosService } from './modules/uploads/index.js'
import {
  announceWorkerChange, deliveryReactions, deliveryWakeups, deliveryWorker, emailProvidersService, hooksService, outboundWebhooksService, outboxRepository,
  subscriptionsRepository, webhookOperations as webhookOperationsService, type WorkerOptions
} from './modules/delivery/index.js'
import { triggersRepository, triggersService, connectionsService, toItem, grantsRepository, oauthClients } from './modules/connectors/index.js'
import { invitationsRepository, invitationsService } from './modules/admin/index.js'
import { featuresRepository, featuresService } from './modules/features/index.js'
import { billingRepository, billingService, embeddedProvider, type BillingProvider } from './modules/billing/index.js'
import { orgsRepository, orgsService } from './modules/orgs/index.js'
import { supportRepository, supportService } from './modules/support/index.js'
import { recentFailures as failureLog } from './lib/recent-failures.js'
import { customersReactions, customersRepository, customersService } from './modules/customers/index.js'
import { birthdayJob, loyaltyReactions, loyaltyRepository, loyaltyService, orderCustomers } from './modules/loyalty/index.js'
import { reviewIncentivesReactions, reviewIncentivesRepository, reviewIncentivesService } from './modules/review-incentives/index.js'
import { affiliatesReactions, affiliatesRepository, affiliatesService } from './modules/affiliates/index.js'
import { partnerGrantsRepository, partnersService } from './modules/partners/index.js'
import {
  emailReactions, emailRepository, emailSender, emailService, rewardMailsRepository, rewardMails as rewardMailsService, emailSettingsService
} from './modules/email/index.js'
import { emailSuppressionsReactions, emailSuppressionsRepository, emailSuppressionsService } from './modules/email-suppressions/index.js'
import { emailBrandingRepository, emailBrandingService } from './modules/email-branding/index.js'
import { emailSequencesRepository, emailSequencesService } from './modules/email-sequences/index.js'
import { Resolver } from 'node:dns/promises'
import { type DnsResolver, sendingDomainRepository, sendingDomainService } from './modules/sending-domain/index.js'
import { analyticsReactions, analyticsRepository, analyticsService } from './modules/analytics/index.js'
import { evidenceRepository, evidenceService } from './modules/evidence/index.js'
import { backupsRepository, backupsService } from './modules/backups/index.js'
import { contentServices } from './content-services.js'
import { galleriesReactions } from './modules/galleries/index.js'
import { faqsReactions } from './modules/faqs/index.js'
import { placementsReactions } from './modules/placements/index.js'
import { platformSyncRepository, platformSyncService, bigcommerceApi } from './modules/platform-sync/index.js'
import { deprecationNotices as deprecationNoticesJob } from './modules/changelog/index.js'

export interface ServiceDeps {
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
  /** The billing provider adapter (billing.provider.ts); the embedded one unless given. */
  billingProvider?: BillingProvider
  /** DNS for sending-domain checks; the system's resolvers unless given (tests point one at a local server). */
  resolver?: DnsResolver
}

const SILENT: Log = { info () {}, warn () {}, error () {} }

export function buildServices (deps: ServiceDeps) {
  const { db, clock, config } = deps
  const hash = deps.hash ?? defaultHasher
  const mailer = deps.mailer ?? mailTransport(config, clock)
  const log = deps.log ?? SILENT
  const { secretKey, publicUrl, webhookAllowPrivate: allowPrivate } = config

  const redisPrefix = deps.redisPrefix ?? config.redisPrefix ?? REDIS_PREFIX
  /** Generation markers every instance reads in its limiter call; changes that refuse requests bump them. */
  const freshness = markers(deps.redis, redisPrefix, (obj, msg) => log.warn(obj, msg))

  /** What is kept derived from a store's reviews (storefront answers, review analytics) is read again on every instance. */
  const reviewsChanged = (storeId: string, trx: Knex) => afterCommit(trx, () => freshness.bump([marker.reviews(storeId)]))

  // Repositories: knex queries only.
  const people = peopleRepository(db)
  const stores = storesRepository(db)
  const audit = auditRepository(db, clock)
  /** Appends events in the writer's transaction; the modules reacting to `events.appended` (delivery) run there too. */
  const bus = domainEvents()
  const events = eventLog(clock, bus)
  const eventHistory = eventsRepository(db)
  const subscriptions = subscriptionsRepository(db)
  const outbox = outboxRepository(db, subscriptions, announceWorkerChange((trx, event) => events.append(trx, event)))
  const grants = grantsRepository(db)
  const clients = oauthClients(db, clock)
  const repos = {
    apiKeys: apiKeysRepository(db),
    products: productsRepository(db),
    orders: ordersRepository(db),
    reviews: reviewsRepository(db, { changed: reviewsChanged }),
    imports: importsRepository(db),
    uploads: uploadsRepository(db),
    triggers: triggersRepository(db),
    invitations: invitationsRepository(db),
    customers: customersRepository(db),
    loyalty: loyaltyRepository(db),
    reviewIncentives: reviewIncentivesRepository(db),
    affiliates: affiliatesRepository(db),
    partnerGrants: partnerGrantsRepository(db),
    email: emailRepository(db),
    rewardMails: rewardMailsRepository(db),
    emailSuppressions: emailSuppressionsRepository(db),
    emailBranding: emailBrandingRepository(db),
    emailSequences: emailSequencesRepository(db),
    sendingDomain: sendingDomainRepository(db),
    analytics: analyticsRepository(db),
    evidence: evidenceRepository(db),
    backups: backupsRepository(db)
  }

  // Services: the rules, each built once from the repositories above.
  const apiKeys = apiKeysService({ db, repo: repos.apiKeys, audit, clock, fresh: freshness, log })
  const bootstrap = bootstrapService({ db, people, stores, audit, keys: apiKeys, clock, hash, fresh: freshness })
  const operator = operatorService({ db, people, stores, audit, keys: apiKeys, clock, hash, fresh: freshness })
  const storage = localDiskStorage(config.dataDir)
  const uploads = uploadsService({ repo: repos.uploads, storage, publicUrl, clock, warn: (obj, msg) => log.warn(obj, msg) })
  const products = productsService({ db, repo: repos.products, events, clock })
  const reviews = reviewsService({
    db, repo: repos.reviews, products: repos.products, uploads, events, clock, secretKey, bus
  })
  const affiliates = affiliatesService({ db, repo: repos.affiliates, events, clock })
  const partners = partnersService({ db, repo: repos.partnerGrants, people, stores, audit, clock })
  const orders = ordersService({
    db,
    repo: repos.orders,
    products: repos.products,
    events,
    clock,
    reviewRequestDelayMs: config.reviewRequestDelayHours * 3_600_000,
    bus,
    // Read when orders are written, by then built below.
    resolveCustomers: (store, refs, trx) => resolveOrderCustomers(store, refs, trx),
    activeSequence: (storeId, trx) => repos.emailSequences.active(storeId, trx)
  })
  // Email: every mail goes through the one sender (suppressions first, then the log, then the transport).
  const emailSuppressions = emailSuppressionsService({ db, repo: repos.emailSuppressions, events, clock })
  const emailBranding = emailBrandingService({ db, repo: repos.emailBranding, uploads, events, clock })
  const sendingDomain = sendingDomainService({
    db, repo: repos.sendingDomain, events, resolver: deps.resolver ?? new Resolver({ timeout: 3000, tries: 2 }), clock, secretKey, publicUrl, mailFrom: config.mailFrom
  })
  const mailSender = emailSender({
    db, repo: repos.email, suppressions: repos.emailSuppressions, branding: emailBranding.brandingOf, transport: mailer, signer: sendingDomain.signerFor, clock, publicUrl
  })
  const email = emailService({ db, repo: repos.email, sender: mailSender, suppressions: emailSuppressions, events, clock })
  const emailSettings = emailSettingsService({ db, repo: repos.rewardMails, events, clock })
  // Loyalty and incentives only tell of a reward (in its transaction); what mail that makes is the email module's.
  const rewardMails = rewardMailsService({ db, repo: repos.rewardMails, settings: emailSettings, sender: mailSender, products: repos.products, clock })
  const emailProviders = emailProvidersService({ db, outbox, events, clock, secretKey, allowPrivate })
  const emailSequences = emailSequencesService({ db, repo: repos.emailSequences, events, clock })
  const reviewRequests = reviewRequestScheduler({
    db, repo: repos.orders, products: repos.products, events, sender: mailSender, sequences: repos.emailSequences, reviewed: repos.reviews.hasOrderReview, clock
  })
  const imports = importsService({ db, repo: repos.imports, reviews: repos.reviews, events, clock })
  const record = async (event: NewEvent) => { await db.transaction((trx) => events.append(trx, event)) }
  const outboundWebhooks = outboundWebhooksService({
    subscriptions, outbox, events: eventHistory, clock, secretKey, allowPrivate, transaction: (work) => db.transaction(work), appendEvent: events.append
  })
  const connectorHooks = hooksService({ subscriptions, clock, secretKey, allowPrivate })
  const connectorTriggers = triggersService({ repo: repos.triggers, people })
  const connections = connectionsService({ db, grants, clients, audit, clock, fresh: freshness, subscriptions })
  // Removing a member ends their OAuth connections (docs/contract/oauth.md#grants).
  const clientStores = async (orgId: string) => (await partners.clientStores(orgId)).map((c) => c.store)
  const account = accountService({ db, people, stores, audit, clock, fresh: freshness, endPersonConnections: connections.endPersonConnections, clientStores })
  const eventHistoryService = eventsService({ events: eventHistory })
  const customers = customersService({ db, repo: repos.customers, events, audit, clock, bus })
  const loyalty = loyaltyService({ db, repo: repos.loyalty, customers: repos.customers, events, clock, bus, makeCustomer: (trx, lead) => customers.fromLead(trx, lead) })
  const resolveOrderCustomers = orderCustomers({ loyalty, customers: repos.customers })
  const birthdays = birthdayJob({ db, loyalty, clock })
  const reviewIncentives = reviewIncentivesService({
    db, repo: repos.reviewIncentives, customers: repos.customers, loyalty, events, clock, bus
  })

  const features = featuresService({ repo: featuresRepository(db), stores, clock, fresh: freshness })
  const billing = billingService({ db, repo: billingRepository(db), stores, provider: deps.billingProvider ?? embeddedProvider(), events, audit, clock, fresh: freshness })
  const orgs = orgsService({ db, repo: orgsRepository(db), people, audit, fresh: freshness })
  const recentFailures = failureLog(deps.redis, redisPrefix)
  const support = supportService({ db, repo: supportRepository(db), events, failures: recentFailures, mailer, supportEmail: config.supportEmail, clock, log })
  const invitations = invitationsService({ db, repo: repos.invitations, people, audit, clock, hash, publicUrl, send: mailSender.direct('invitation'), fresh: freshness })
  // Issue 15: galleries, FAQs, categories, web pages, placements and the storefront reads.
  const content = contentServices({ db, clock, events, secretKey, repos, uploads, bus })
  const abandonedUploadsSweep = abandonedUploads({ db, repo: repos.uploads, storage, clock, warn: (obj, msg) => log.warn(obj, msg) })
  const videos = videosService({ db, uploads: repos.uploads, storage, clock, publicUrl, bus })
  const analytics = analyticsService({ repo: repos.analytics, clock, fresh: freshness })
  const evidence = evidenceService({
    repo: repos.evidence, products: repos.products, clock, issuer: `${publicUrl}/oauth`, galleryPhotos: content.galleries.productPhotos, record
  })
  const backups = backupsService({ db, repo: repos.backups, stores, events, audit, clock, dataDir: config.dataDir, storage, secretKey, log, reviewsChanged })

  const platformSync = platformSyncService({
    db,
    repo: platformSyncRepository(db),
    events,
    stores,
    products,
    productRows: repos.products,
    orders,
    audit,
    clock,
    secretKey,
    publicUrl,
    bigcommerce: bigcommerceApi({
      baseUrl: config.bigcommerceApiUrl ?? BIGCOMMERCE_DEFAULTS.apiUrl, timeoutMs: config.bigcommerceApiTimeoutMs ?? BIGCOMMERCE_DEFAULTS.timeoutMs
    }),
    log
  })

  const webhookOperations = webhookOperationsService({ subscriptions, outbox, audit, clock, transaction: (work) => db.transaction(work), appendEvent: events.append })
  const deprecationNotices = deprecationNoticesJob({ db, mail: mailer, clock, publicUrl })

  const wakeups = deliveryWakeups(deps.redis, redisPrefix, (obj, msg) => log.warn(obj, msg))

  // What each module does when another tells of a change, in the order the reactions to one event run.
  eventsReactions(bus, { freshness })
  deliveryReactions(bus, { outbox, wakeups, clock })
  reviewsReactions(bus, { reviews, reviewsChanged })
  loyaltyReactions(bus, { loyalty })
  affiliatesReactions(bus, { affiliates })
  reviewIncentivesReactions(bus, { reviewIncentives })
  emailReactions(bus, { emailRepo: repos.email, rewardMails })
  emailSuppressionsReactions(bus, { emailSuppressions })
  galleriesReactions(bus, content)
  customersReactions(bus, { customers })
  analyticsReactions(bus)
  faqsReactions(bus, content)
  productsReactions(bus, { products })
  placementsReactions(bus, content)

  /** For the delivery worker: whether the store's plan still includes the subscription's kind (features.includes). */
  const entitled = (storeId: string, kind: 'webhook' | 'hook') => features.includes(storeId, kind === 'webhook' ? 'outbound-webhooks' : 'connector-hooks')

  /** The delivery pipeline shared by outbound webhooks and connector hooks; jobs and tests start workers from it. */
  const delivery = {
    subscriptions,
    outbox,
    createWorker: (options: Partial<WorkerOptions> = {}) => deliveryWorker({
      outbox, clock, secretKey, publicUrl, allowPrivate, redis: deps.redis, redisPrefix, log, hookItem: toItem, wakeups, entitled
    }, options)
  }

  return {
    ...content,
    videos,
    /** Deletes uploads nothing took within a day (modules/uploads/abandoned.ts); the jobs run it hourly. */
    abandonedUploads: abandonedUploadsSweep,
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
    features,
    billing,
    orgs,
    recentFailures,
    support,
    customers,
    /** What modules tell each other (src/lib/domain-events.ts); the reactions above are subscribed to it. */
    bus,
    loyalty,
    birthdays,
    reviewIncentives,
    affiliates,
    partners,
    emailSuppressions,
    emailBranding,
    mailSender,
    email,
    emailSettings,
    rewardMails,
    emailSequences,
    sendingDomain,
    emailProviders,
    analytics,
    evidence,
    backups,
    platformSync,
    webhookOperations,
    deprecationNotices,
    /** Lets go of what was made here (the mailer); the db and Redis belong to whoever passed them in. */
    async close () {
      if (!deps.mailer) mailer.close()
    }
  }
}

export type Services = ReturnType<typeof buildServices>
