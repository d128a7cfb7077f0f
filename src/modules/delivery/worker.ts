import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import Bottleneck from 'bottleneck'
import type { Redis } from 'ioredis'
import type { Agent } from 'undici'
import type { Clock } from '../../lib/clock.js'
import { decrypt } from '../../lib/secrets.js'
import { iso } from '../../lib/clock.js'
import type { AttemptRecord, ClaimedDelivery, OutboxRepository } from './outbox.repository.js'
import { verdictOf } from './outcome.js'
import { signatureHeaders } from './sign.js'
import { checkLiteralHost, guardedLookup } from './url-guard.js'
import { providerRequest, type ProviderConfig } from './providers.js'
import type { DeliveryWakeups } from './wakeups.js'

export interface WorkerOptions {
  /** No answer within this many ms is a failed attempt (docs/contract/event-visibility.md#events: 10 s). */
  timeoutMs: number
  /** How often an idle worker looks for due deliveries. */
  pollMs: number
  /** Deliveries claimed per round trip. */
  batchSize: number
  /** Deliveries this worker has claimed and not finished, at most. */
  maxInFlight: number
  /** How long a claim lasts; a crashed worker's deliveries are claimable again after it. */
  leaseMs: number
  /** Requests in flight to one receiver (origin), across every instance when Redis is configured. */
  perReceiverConcurrency: number
  /** Only these stores' deliveries (a dedicated worker for a large tenant; tests); null: every store. */
  storeIds: string[] | null
}

export const DEFAULT_WORKER_OPTIONS: WorkerOptions = {
  timeoutMs: 10_000,
  pollMs: 500,
  batchSize: 100,
  maxInFlight: 200,
  leaseMs: 120_000,
  perReceiverConcurrency: 10,
  storeIds: null
}

export interface WorkerDeps {
  outbox: OutboxRepository
  clock: Clock
  secretKey: string
  publicUrl: string
  allowPrivate: boolean
  redis: Redis | null
  redisPrefix: string
  log: { warn: (obj: object, msg: string) => void, error: (obj: object, msg: string) => void }
  /** The item a connector hook receives (modules/connectors/items.ts), passed in so delivery imports no module. */
  hookItem: HookItem
  /**
   * Whether the store's plan (and operator overrides) still includes the subscription's kind: a store that moved
   * to a plan without outbound webhooks or hooks gets no more deliveries to them (queued ones are cancelled).
   * Absent: every store is.
   */
  entitled?: (storeId: string, kind: 'webhook' | 'hook') => Promise<boolean>
  /** Wake-ups from other processes that committed deliveries (delivery/wakeups.ts); without them it polls. */
  wakeups?: Pick<DeliveryWakeups, 'listen'>
}

export type HookItem = (event: { id: string, type: string, createdAt: string, data: Record<string, unknown> }) => object

export type DeliveryWorker = ReturnType<typeof deliveryWorker>

/**
 * The item a subscription of each kind receives (docs/contract/event-visibility.md#events and
 * docs/contract/connectors.md#triggers-and-polling).
 */
export function deliveryBody (
  d: Pick<ClaimedDelivery, 'kind' | 'event_seq' | 'event_type' | 'event_created_at' | 'store_env_id' | 'event_data'>,
  hookItem: HookItem
): string {
  const id = `evt_${d.event_seq}`
  const createdAt = iso(Number(d.event_created_at))!
  const data = JSON.parse(d.event_data) as Record<string, unknown>
  if (d.kind === 'hook') return JSON.stringify(hookItem({ id, type: d.event_type, createdAt, data }))
  return JSON.stringify({ id, type: d.event_type, createdAt, storeEnvId: d.store_env_id, data })
}

function describe (err: unknown, timeoutMs: number): string {
  const e = err as { name?: string, code?: string, message?: string }
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `No answer within ${timeoutMs / 1000} s`
  if (e.code === 'EUNSAFEADDRESS' || e.name === 'UnsafeUrlError') return `Refused: ${e.message}`
  return e.code ? `${e.code}: ${e.message ?? ''}`.trim() : (e.message ?? 'Request failed')
}

type Options = WorkerOptions
type Recorder = () => Promise<void>
interface Attempted { responseCode: number | null, error: string | null, durationMs: number }

/**
 * Step: the per-receiver concurrency limit, clustered through Redis when there is one (bottleneck keeps slots there).
 * A job is a group of requests to one receiver sent together, weighing as many slots as it holds requests: the
 * limit counts requests as exactly as one job per request would, for a fraction of the round trips (bottleneck's
 * clustered bookkeeping per job was most of a delivery's cost: 2,000 against 4,900 deliveries/s without it).
 */
function receiverLimits (deps: WorkerDeps, options: Options) {
  const redisLink = deps.redis ? deps.redis.duplicate({ enableOfflineQueue: true, lazyConnect: false, maxRetriesPerRequest: 3 }) : null
  const connection = redisLink ? new Bottleneck.IORedisConnection({ client: redisLink }) : null
  const group = new Bottleneck.Group({
    maxConcurrent: options.perReceiverConcurrency,
    // Redis keeps a receiver's limit as first set (bottleneck does not update it): a key per setting lets a release
    // that changes perReceiverConcurrency take effect at once (a larger one had every group over the old limit refused
    // as overweight while the receiver stayed busy), at the price of both limits holding while old and new instances
    // run side by side.
    id: `${deps.redisPrefix}webhook-receivers:${options.perReceiverConcurrency}`,
    ...(connection ? { datastore: 'ioredis', connection, clearDatastore: false, timeout: 600_000 } : {})
  })
  group.on('error', (err: Error) => deps.log.warn({ err: { message: err.message } }, 'delivery limiter error'))
  return {
    /** expiration: in a cluster, a crashed instance's slot is given back after it. */
    schedule: <T>(receiver: string, requests: number, job: () => Promise<T>) =>
      group.key(receiver).schedule({ weight: requests, expiration: options.timeoutMs + 5_000 }, job),
    async close () {
      await group.disconnect(false)
      await connection?.disconnect(false)
      redisLink?.disconnect()
    }
  }
}

/** Step: each subscription's signing secret, unsealed once per worker. */
function secretCache (secretKey: string) {
  const secrets = new Map<string, string>()
  return function secretOf (d: ClaimedDelivery): string {
    let secret = secrets.get(d.subscription_id)
    if (secret === undefined) {
      secret = decrypt(d.secret_sealed, secretKey)
      if (secrets.size > 10_000) secrets.clear()
      secrets.set(d.subscription_id, secret)
    }
    return secret
  }
}

/** Step: successes are recorded in batches, one commit for many deliveries instead of one each. */
function successBatches (outbox: OutboxRepository, batchSize: number) {
  const successes: Array<{ record: AttemptRecord, done: () => void, fail: (err: Error) => void }> = []
  let flushTimer: NodeJS.Timeout | null = null

  function flush () {
    if (flushTimer) clearTimeout(flushTimer)
    flushTimer = null
    const items = successes.splice(0)
    if (items.length === 0) return
    outbox.succeededMany(items.map((i) => i.record)).then(
      () => items.forEach((i) => i.done()),
      (err: Error) => items.forEach((i) => i.fail(err))
    )
  }

  return function recordSuccess (record: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      successes.push({ record, done: resolve, fail: reject })
      if (successes.length >= batchSize) flush()
      else flushTimer ??= setTimeout(flush, 10)
    })
  }
}

/** Step: the headers of one attempt, signed with the subscription's secret at the attempt's time. */
function deliveryHeaders (d: ClaimedDelivery, secret: string, body: string, now: number, publicUrl: string) {
  // The outbox row is the delivery, kept through its retries: its id is also the Standard Webhooks `webhook-id`.
  const deliveryId = `dlv_${d.id}`
  return {
    'content-type': 'application/json',
    'user-agent': 'evidence-hub-webhooks/1',
    'x-service-event-id': `evt_${d.event_seq}`,
    'x-service-event-type': d.event_type,
    'x-service-delivery-id': deliveryId,
    ...signatureHeaders(secret, body, now, publicUrl, deliveryId)
  }
}

interface Http { agent: Agent, request: typeof import('undici').request }

/** Step: one POST to the receiver (SSRF-guarded, with a timeout); never throws, the outcome says what happened. */
async function post (
  url: string,
  body: string,
  headers: Record<string, string>,
  http: () => Promise<Http>,
  deps: WorkerDeps,
  options: Options
): Promise<Attempted> {
  const t0 = performance.now()
  let responseCode: number | null = null
  let error: string | null = null
  try {
    const target = new URL(url)
    checkLiteralHost(target, deps.allowPrivate)
    const { agent, request } = await http()
    const res = await request(target, { method: 'POST', body, headers, dispatcher: agent, signal: AbortSignal.timeout(options.timeoutMs) })
    responseCode = res.statusCode
    await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined)
  } catch (err) {
    error = describe(err, options.timeoutMs)
  }
  return { responseCode, error, durationMs: performance.now() - t0 }
}

/** Step: what an attempt's outcome writes (delivery/outcome.ts decides it). */
function outcome (outbox: OutboxRepository, record: AttemptRecord, recordSuccess: (r: AttemptRecord) => Promise<void>): Recorder {
  const verdict = verdictOf(record)
  switch (verdict.kind) {
    case 'succeeded': return () => recordSuccess(record)
    case 'gone': return () => outbox.gone(record, verdict.endAs, verdict.reason)
    case 'failed': return () => outbox.failed({ ...record, error: verdict.error }, verdict.retryAt, verdict.disableReason)
  }
}

/** Resolves after `ms`, or earlier when woken (a nudge, a finished delivery, stop). */
function sleeper () {
  let wake: (() => void) | null = null
  return {
    wake: () => wake?.(),
    pause: (ms: number) => new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms)
      function done () {
        clearTimeout(timer)
        wake = null
        resolve()
      }
      wake = done
    })
  }
}

/**
 * Claims due deliveries from the outbox and sends them: per-receiver concurrency through bottleneck (clustered
 * through Redis when there is one), a timeout per attempt, the retry schedule, 410 ends the subscription.
 * Each round is: claim -> dispatch (per receiver, in groups of at most its concurrency) -> attempt (sign, post) ->
 * record the outcome.
 */
export function deliveryWorker (deps: WorkerDeps, overrides: Partial<WorkerOptions> = {}) {
  const options = { ...DEFAULT_WORKER_OPTIONS, ...overrides }
  const { outbox, clock } = deps
  // undici is ~5 MB of heap, loaded with the first delivery: an API instance that runs no worker never needs it.
  let http: Promise<Http> | null = null
  const connected = () => (http ??= import('undici').then(({ Agent, request }) => ({
    agent: new Agent({
      connect: { lookup: guardedLookup(deps.allowPrivate) },
      connections: options.perReceiverConcurrency,
      keepAliveTimeout: 4_000
    }),
    request
  })))
  const receivers = receiverLimits(deps, options)
  const secretOf = secretCache(deps.secretKey)
  const recordSuccess = successBatches(outbox, options.batchSize)
  const sleep = sleeper()
  const stats = { claimed: 0, attempted: 0 }
  const inFlight = new Set<Promise<void>>()
  let running = false
  let stopped: Promise<void> | null = null
  let loop: Promise<void> | null = null
  let nudged = false
  let listening: Promise<() => void> | null = null

  /** Sends one delivery; resolves to the step that records its outcome, run after the receiver's slot is freed. */
  async function attempt (d: ClaimedDelivery, token: string, leaseUntil: number): Promise<Recorder> {
    const started = clock()
    // Never start an attempt that could outlive the claim: another worker may own the delivery by then.
    if (started + options.timeoutMs + 1_000 > leaseUntil) return () => outbox.release(d.id, token, started)
    if (d.subscription_status !== 'active') return () => outbox.cancel(d.id, token, `Subscription ${d.subscription_status}`, started)
    if (d.kind !== 'provider' && deps.entitled && !await deps.entitled(d.store_env_id, d.kind)) {
      return () => outbox.cancel(d.id, token, 'The store\'s plan no longer includes them', started)
    }
    stats.attempted++
    if (d.kind === 'provider') return attemptProvider(d, token, started)
    const body = deliveryBody(d, deps.hookItem)
    const sent = await post(d.url, body, deliveryHeaders(d, secretOf(d), body, started, deps.publicUrl), connected, deps, options)
    return outcome(outbox, { delivery: d, token, now: clock(), ...sent }, recordSuccess)
  }

  /** An email provider: the request in its own format (delivery/providers.ts); an event it cannot carry fails. */
  async function attemptProvider (d: ClaimedDelivery, token: string, started: number): Promise<Recorder> {
    let built
    try {
      const event = {
        id: `evt_${d.event_seq}`,
        deliveryId: `dlv_${d.id}`,
        type: d.event_type,
        createdAt: Number(d.event_created_at),
        storeEnvId: d.store_env_id,
        data: JSON.parse(d.event_data) as Record<string, unknown>
      }
      built = providerRequest(JSON.parse(secretOf(d)) as ProviderConfig, d.url, event, started, deps.publicUrl)
    } catch (err) {
      return outcome(
        outbox,
        { delivery: d, token, now: clock(), responseCode: null, durationMs: 0, error: (err as Error).message },
        recordSuccess
      )
    }
    const sent = await post(built.url, built.body, built.headers, connected, deps, options)
    return outcome(outbox, { delivery: d, token, now: clock(), ...sent }, recordSuccess)
  }

  /**
   * Sends a group of deliveries to one receiver at once, holding one slot each; every delivery's outcome is recorded
   * once the whole group is done and its slots are free again.
   */
  function dispatch (receiver: string, group: ClaimedDelivery[], token: string, leaseUntil: number): Array<Promise<void>> {
    const failed = (d: ClaimedDelivery, err: Error) => {
      deps.log.error({ err: { message: err.message }, delivery: d.id }, 'delivery attempt failed unexpectedly')
    }
    // An attempt that throws records nothing: its claim lapses and the delivery is tried again.
    const sent = receivers.schedule(
      receiver,
      group.length,
      () => Promise.all(group.map((d) => attempt(d, token, leaseUntil).catch((err: Error) => async () => failed(d, err))))
    )
    return group.map((d, i) => {
      const job: Promise<void> = sent
        .then((recorders) => recorders[i]())
        .catch((err: Error) => failed(d, err))
        .finally(() => {
          inFlight.delete(job)
          sleep.wake()
        })
      inFlight.add(job)
      return job
    })
  }

  /** The claimed deliveries by receiver (origin), in groups of at most its concurrency. */
  function groups (rows: ClaimedDelivery[]): Array<[string, ClaimedDelivery[]]> {
    const byReceiver = new Map<string, ClaimedDelivery[]>()
    for (const d of rows) {
      const receiver = new URL(d.url).origin
      const list = byReceiver.get(receiver) ?? []
      list.push(d)
      byReceiver.set(receiver, list)
    }
    const out: Array<[string, ClaimedDelivery[]]> = []
    for (const [receiver, list] of byReceiver) {
      for (let i = 0; i < list.length; i += options.perReceiverConcurrency) {
        out.push([receiver, list.slice(i, i + options.perReceiverConcurrency)])
      }
    }
    return out
  }

  /** One claim round: returns the claimed deliveries' promises. */
  async function claimRound (limit: number): Promise<Array<Promise<void>>> {
    const token = randomUUID()
    const now = clock()
    const ids = await outbox.claim(token, now, options.leaseMs, limit, options.storeIds)
    if (ids.length === 0) return []
    const rows = await outbox.claimed(token, ids)
    stats.claimed += rows.length
    return groups(rows).flatMap(([receiver, group]) => dispatch(receiver, group, token, now + options.leaseMs))
  }

  async function run () {
    for (;;) {
      if (!running) return
      let claimed = 0
      const room = options.maxInFlight - inFlight.size
      // A claim round costs the same statements for one row as for a full batch: while enough is in flight to keep
      // the receivers busy, wait for room for a whole batch instead of claiming the few that just finished.
      const full = room < options.batchSize && inFlight.size >= options.batchSize
      if (room > 0 && !full) {
        try {
          claimed = (await claimRound(Math.min(room, options.batchSize))).length
        } catch (err) {
          deps.log.warn({ err: { message: (err as Error).message } }, 'claiming deliveries failed')
        }
      }
      const idle = claimed === 0 && !nudged
      nudged = false
      if (running && (idle || full || inFlight.size >= options.maxInFlight)) await sleep.pause(options.pollMs)
    }
  }

  function nudge () {
    nudged = true
    sleep.wake()
  }

  return {
    options,
    stats,

    /**
     * Claims and sends everything due now, then waits for those attempts (tests with a manual clock). A claim skips
     * rows another transaction holds for a moment (on MySQL a claim of other stores can lock the row just past its
     * range), so while a plain read still sees a due delivery it looks again, for up to two seconds.
     */
    async runOnce (): Promise<number> {
      let total = 0
      const until = performance.now() + 2_000
      for (;;) {
        const jobs = await claimRound(options.batchSize)
        if (jobs.length === 0) {
          if (performance.now() > until || !(await outbox.anyDue(clock(), options.storeIds))) return total
          await new Promise((resolve) => setTimeout(resolve, 20))
          continue
        }
        total += jobs.length
        await Promise.all(jobs)
      }
    },

    /** New deliveries were committed: look now instead of at the next poll. */
    nudge,

    start () {
      if (running) return
      running = true
      listening = deps.wakeups?.listen(nudge) ?? null
      loop = run()
    },

    /** Finishes the attempts in flight, then lets go of connections; calling it again waits for the same stop. */
    stop (): Promise<void> {
      stopped ??= (async () => {
        running = false
        sleep.wake()
        const stopListening = await listening
        stopListening?.()
        await loop
        await Promise.allSettled([...inFlight])
        await receivers.close()
        if (http) await (await http).agent.close()
      })()
      return stopped
    }
  }
}
