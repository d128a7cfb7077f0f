import type { Knex } from 'knex'
import { errors } from '../../../errors.js'
import { iso, type Clock } from '../../../lib/clock.js'
import { base62, newId } from '../../../lib/ids.js'
import { envelope, toPage, type PageQuery } from '../../../lib/pagination.js'
import { toMs } from '../../../lib/formats.js'
import { decrypt, encrypt } from '../../../lib/secrets.js'
import type { Provider, ProviderConfig } from '../providers.js'
import type { OutboxRepository } from '../outbox.repository.js'
import type { SubscriptionRow } from '../subscriptions.repository.js'
import { SECRET_PREFIX } from '../subscriptions.js'
import { checkUrl, UnsafeUrlError } from '../url-guard.js'
import { presentAttempt, type AttemptRow } from '../outbound-webhooks/outbound-webhooks.service.js'
import { type Credential, type StoreEnv, actorOf } from '../../../types.js'
import { isEventType, assertMayReadEvent, lockEventLog, type EventLog } from '../../events/index.js'

interface Deps { db: Knex, outbox: OutboxRepository, events: EventLog, clock: Clock, secretKey: string, allowPrivate: boolean }

export const DEFAULT_PROVIDER_EVENTS = ['loyalty.referral_reward', 'loyalty.birthday_reward']

export interface ProviderInput { apiKey?: string, baseUrl?: string, listId?: string, events?: string[], enabled?: boolean }

/** Mailchimp's data centre is the key's suffix (`…-us21`): its API lives at https://us21.api.mailchimp.com. */
function defaultBaseUrl (provider: Provider, apiKey: string | undefined): string | null {
  if (provider === 'klaviyo') return 'https://a.klaviyo.com'
  const dc = provider === 'mailchimp' ? /-([a-z]{2}\d{1,3})$/.exec(apiKey ?? '')?.[1] : undefined
  return dc ? `https://${dc}.api.mailchimp.com` : null
}

/**
 * Email providers of a store (klaviyo, mailchimp, webhook): each is a `provider` subscription of the durable outbox
 * (delivery/providers.ts), so its events get the retries, the throttle and the delivery log of outbound webhooks.
 * The API key (and a webhook's signing secret) is sealed with SECRET_KEY; only its last four characters are shown.
 */
export function emailProvidersService ({ db, outbox, events, clock, secretKey, allowPrivate }: Deps) {
  const find = (storeId: string, provider: Provider, trx: Knex = db): Promise<SubscriptionRow | undefined> =>
    trx<SubscriptionRow>('webhook_subscriptions').where({ store_env_id: storeId, kind: 'provider', description: provider }).whereIn(
      'status',
      ['active', 'disabled']
    ).first()

  const configOf = (row: SubscriptionRow | undefined): ProviderConfig | null =>
    row ? JSON.parse(decrypt(row.secret_sealed, secretKey)) as ProviderConfig : null

  /** A URL the store gave (SSRF); the providers' own are known. The worker checks every connection. */
  async function checked (baseUrl: string, provider: Provider, apiKey: string | undefined) {
    if (baseUrl === defaultBaseUrl(provider, apiKey)) return
    try {
      await checkUrl(baseUrl, allowPrivate)
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw new errors.InvalidUrl(err.message)
      throw err
    }
  }

  function present (row: SubscriptionRow, provider: Provider, signingSecret?: string) {
    const config = JSON.parse(decrypt(row.secret_sealed, secretKey)) as ProviderConfig
    return {
      provider,
      baseUrl: row.url,
      listId: config.listId ?? null,
      events: JSON.parse(row.events) as string[],
      enabled: row.status === 'active',
      statusReason: row.status_reason,
      apiKeyLast4: config.apiKey ? config.apiKey.slice(-4) : null,
      ...(signingSecret ? { signingSecret } : {}),
      createdAt: iso(row.created_at)!
    }
  }

  async function found (storeId: string, provider: Provider) {
    const row = await find(storeId, provider)
    if (!row) throw new errors.NotFound(`Email provider ${provider}`)
    return row
  }

  return {
    get: async (storeId: string, provider: Provider) => present(await found(storeId, provider), provider),

    /**
     * Creates or replaces the provider; an omitted API key keeps the stored one. A webhook's secret is shown once.
     * Set-ups of one store take turns (its writer lock) and decide under it whether the provider exists, so set-ups
     * sent at once make one subscription, not one each (each would push every event).
     */
    async put (actor: Credential, store: StoreEnv, provider: Provider, input: ProviderInput) {
      for (const type of input.events ?? []) if (!isEventType(type)) throw new errors.InvalidEventType(type)
      // docs/contract/event-visibility.md#subscriptions: a subscription carries only event types its creator may read,
      // and a provider is one (it is sent each event whole, to a URL the store may choose).
      for (const type of input.events ?? []) assertMayReadEvent(actor, type)
      // A URL the store gives is checked first, outside the lock (a DNS lookup); one already stored was checked then.
      if (input.baseUrl) await checked(input.baseUrl, provider, input.apiKey ?? configOf(await find(store.id, provider))?.apiKey)
      return db.transaction(async (trx) => {
        await lockEventLog(trx, store.id)
        const before = await find(store.id, provider, trx)
        if (!before && !input.events) for (const type of DEFAULT_PROVIDER_EVENTS) assertMayReadEvent(actor, type)
        const old = configOf(before)
        const apiKey = input.apiKey ?? old?.apiKey
        if (provider !== 'webhook' && !apiKey) throw new errors.InvalidRequest(`apiKey: ${provider} needs an API key`)
        const listId = input.listId ?? old?.listId
        if (provider === 'mailchimp' && !listId) throw new errors.InvalidRequest('listId: Mailchimp needs the audience (list) id')
        const baseUrl = input.baseUrl ?? before?.url ?? defaultBaseUrl(provider, apiKey)
        if (!baseUrl) {
          throw new errors.InvalidRequest(
            provider === 'webhook'
              ? 'baseUrl: give the URL to post events to'
              : 'baseUrl: the API key names no data centre; give the base URL'
          )
        }
        const fresh = provider === 'webhook' && !old?.signingSecret ? SECRET_PREFIX + base62(32) : undefined
        const config: ProviderConfig = { provider, apiKey, listId, signingSecret: old?.signingSecret ?? fresh }
        const now = clock()
        const fields = {
          url: baseUrl,
          events: JSON.stringify(input.events ?? (before ? JSON.parse(before.events) : DEFAULT_PROVIDER_EVENTS)),
          secret_sealed: encrypt(JSON.stringify(config), secretKey),
          status: input.enabled === false ? 'disabled' as const : 'active' as const,
          status_reason: input.enabled === false ? 'Turned off by the store' : null,
          status_changed_at: now,
          consecutive_failures: 0
        }
        const where = { orgId: store.orgId, storeEnvId: store.id }
        if (before) {
          await trx('webhook_subscriptions').where({ id: before.id }).update(fields)
          const out = present({ ...before, ...fields }, provider)
          await events.append(trx, { ...where, type: 'email_provider.updated', data: out })
          return out
        }
        const row: SubscriptionRow = {
          id: newId('esp'),
          org_id: store.orgId,
          store_env_id: store.id,
          kind: 'provider',
          description: provider,
          created_by: actorOf(actor),
          created_at: now,
          ...fields
        }
        await trx('webhook_subscriptions').insert(row)
        // The log never holds the signing secret: it is shown once, in this answer.
        await events.append(trx, { ...where, type: 'email_provider.created', data: present(row, provider) })
        return present(row, provider, fresh)
      })
    },

    /**
     * Stops every push to the provider and forgets its key. The row is retired, not deleted, so the outbox's
     * attempts keep their subscription; configuring the provider again starts a new one.
     */
    async remove (actor: Credential, store: StoreEnv, provider: Provider) {
      await db.transaction(async (trx) => {
        const row = await find(store.id, provider, trx)
        if (!row) throw new errors.NotFound(`Email provider ${provider}`)
        const retired = await trx('webhook_subscriptions').where({ id: row.id }).whereIn('status', ['active', 'disabled']).update({
          status: 'retired',
          status_reason: `Removed by ${actorOf(actor)}`,
          status_changed_at: clock(),
          secret_sealed: encrypt(JSON.stringify({ provider }), secretKey)
        })
        // Two removals at once: the second retires nothing, and appends nothing.
        if (retired === 0) throw new errors.NotFound(`Email provider ${provider}`)
        await events.append(trx, {
          orgId: store.orgId,
          storeEnvId: store.id,
          type: 'email_provider.deleted',
          data: { id: row.id, provider }
        })
      })
    },

    /** The delivery log: every attempt to the provider, newest first. */
    async deliveries (storeId: string, provider: Provider, query: PageQuery & { updatedSince?: string }) {
      const row = await found(storeId, provider)
      const page = toPage(query)
      const { total, rows } = await outbox.listAttempts(storeId, row.id, page, toMs(query.updatedSince))
      return envelope((rows as AttemptRow[]).map(presentAttempt), total, page)
    }
  }
}
export type EmailProvidersService = ReturnType<typeof emailProvidersService>
