/**
 * Every background job of the service, started from this one place: inside `npm start` when WORKERS is on (the
 * default), or in a process of its own with `npm run worker` (src/worker.ts) while the web instances run with
 * WORKERS=false. A new job (the daily jobs of wave 2) is one more entry in `jobList`.
 */
import type { Services } from './services.js'
import { removeExpiredModels } from '../oauth/adapter.js'

export interface Job {
  name: string
  start: () => void
  /** Waits for the work in progress; called once on shutdown. */
  stop: () => Promise<void>
}

const REVIEW_REQUESTS_EVERY_MS = 30_000
/** Reward mails are queued when the reward is granted; this sends them soon after. */
const REWARD_MAILS_EVERY_MS = 30_000
const OAUTH_HOUSEKEEPING_EVERY_MS = 10 * 60_000
/** The birthday grant is daily; passing hourly grants soon after midnight UTC (once per year whatever runs it). */
const BIRTHDAYS_EVERY_MS = 60 * 60_000
const BACKUPS_EVERY_MS = 5_000
/** Uploads wait a day for what takes them (modules/uploads/abandoned.ts); an hour more or less does not matter. */
const ABANDONED_UPLOADS_EVERY_MS = 3_600_000
/** Hourly: the notice itself goes out at most once a week per organization (modules/changelog/deprecation-notices.ts). */
const DEPRECATION_NOTICES_EVERY_MS = 3_600_000
/** Idempotency keys hold their answer 24 h; a repeat ignores an expired row anyway, so hourly is only housekeeping. */
const IDEMPOTENCY_KEYS_EVERY_MS = 3_600_000

/** Runs `work` every `everyMs`; a pass still running when the next is due is not doubled. */
export function intervalJob (name: string, everyMs: number, work: () => Promise<unknown>, log: Services['log']): Job {
  let timer: NodeJS.Timeout | null = null
  let running: Promise<unknown> | null = null
  return {
    name,
    start () {
      timer ??= setInterval(() => {
        if (running) return
        running = work().catch((err: Error) => log.error({ err: { message: err.message, stack: err.stack } }, `${name} failed`)).finally(
          () => {
            running = null
          }
        )
      }, everyMs)
      timer.unref()
    },
    async stop () {
      if (timer) clearInterval(timer)
      timer = null
      await running
    }
  }
}

/**
 * The outbox's delivery worker, woken as soon as a writer in this process commits, or one elsewhere queues
 * deliveries (modules/delivery/wakeups.ts); otherwise it polls.
 */
function deliveryJob (services: Services): Job {
  const worker = services.delivery.createWorker()
  return { name: 'webhook delivery', start: () => worker.start(), stop: () => worker.stop() }
}

export function jobList (services: Services): Job[] {
  const { log, clock, db } = services
  return [
    deliveryJob(services),
    intervalJob('review request scheduler', REVIEW_REQUESTS_EVERY_MS, () => services.reviewRequests.runDue(), log),
    intervalJob('reward mails', REWARD_MAILS_EVERY_MS, () => services.rewardMails.runDue(), log),
    intervalJob('oauth housekeeping', OAUTH_HOUSEKEEPING_EVERY_MS, () => removeExpiredModels(db, clock()), log),
    intervalJob('loyalty birthdays', BIRTHDAYS_EVERY_MS, () => services.birthdays.run(), log),
    intervalJob('backups', BACKUPS_EVERY_MS, () => services.backups.runQueued(), log),
    intervalJob('deprecation notices', DEPRECATION_NOTICES_EVERY_MS, () => services.deprecationNotices.runOnce(), log),
    intervalJob('abandoned uploads', ABANDONED_UPLOADS_EVERY_MS, () => services.abandonedUploads(), log),
    intervalJob('expired idempotency keys', IDEMPOTENCY_KEYS_EVERY_MS, () => services.idempotencyKeys.purgeExpired(), log)
  ]
}

/** Starts every job; the returned function stops them all and waits for their work in progress. */
export function startJobs (services: Services): () => Promise<void> {
  const jobs = jobList(services)
  for (const job of jobs) job.start()
  services.log.info({ jobs: jobs.map((j) => j.name) }, 'background jobs started')
  return async () => { await Promise.all(jobs.map((job) => job.stop())) }
}
