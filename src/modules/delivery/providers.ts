import { createHash } from 'node:crypto'
import { iso } from '../../lib/clock.js'
import { signatureHeaders } from './sign.js'

/**
 * Email providers as delivery destinations (docs/contract/resources.md#email): a `provider` subscription carries the
 * provider's base URL, and sealed in its secret the API key and the rest of its configuration. Each event becomes
 * one request in the provider's own documented format:
 * - Klaviyo Create Event (`POST /api/events/`, JSON:API body, `revision` header);
 * - Mailchimp Marketing member events (`POST /3.0/lists/{list_id}/members/{subscriber_hash}/events`);
 * - a generic webhook, signed exactly like outbound webhooks (docs/contract/webhooks-and-delivery.md#signatures).
 */
export const PROVIDERS = ['klaviyo', 'mailchimp', 'webhook'] as const
export type Provider = typeof PROVIDERS[number]

export const KLAVIYO_REVISION = '2024-10-15'

export interface ProviderConfig { provider: Provider, apiKey?: string, listId?: string, signingSecret?: string }

export interface ProviderEvent {
  id: string
  /** `dlv_…`, the same on every retry: the generic webhook's `webhook-id`. */
  deliveryId: string
  type: string
  createdAt: number
  storeEnvId: string
  data: Record<string, unknown>
}

export interface ProviderRequest { url: string, body: string, headers: Record<string, string> }

/** The customer an event is about: loyalty events name them as `customer.email` (or `email`). */
function emailOf (data: Record<string, unknown>): string {
  const customer = data.customer as { email?: unknown } | undefined
  const email = customer?.email ?? data.customerEmail ?? data.email
  if (typeof email !== 'string' || !email.includes('@')) throw new Error('The event names no customer email, which the provider needs')
  return email.trim().toLowerCase()
}

/** Flat string properties (Mailchimp takes only strings; Klaviyo gets the same for consistency). */
function propertiesOf (event: ProviderEvent): Record<string, string> {
  const out: Record<string, string> = { event_id: event.id, store_env_id: event.storeEnvId }
  for (const [key, value] of Object.entries(event.data)) {
    if (value === null || value === undefined) continue
    if (typeof value !== 'object') out[key] = String(value)
  }
  return out
}

const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`

export function providerRequest (
  config: ProviderConfig,
  baseUrl: string,
  event: ProviderEvent,
  now: number,
  publicUrl: string
): ProviderRequest {
  switch (config.provider) {
    case 'klaviyo': {
      const body = JSON.stringify({
        data: {
          type: 'event',
          attributes: {
            properties: propertiesOf(event),
            metric: { data: { type: 'metric', attributes: { name: event.type } } },
            profile: { data: { type: 'profile', attributes: { email: emailOf(event.data) } } },
            time: iso(event.createdAt),
            unique_id: event.id
          }
        }
      })
      return {
        url: joinUrl(baseUrl, '/api/events/'),
        body,
        headers: {
          authorization: `Klaviyo-API-Key ${config.apiKey}`,
          revision: KLAVIYO_REVISION,
          accept: 'application/vnd.api+json',
          'content-type': 'application/vnd.api+json'
        }
      }
    }
    case 'mailchimp': {
      const hash = createHash('md5').update(emailOf(event.data)).digest('hex')
      // Event names: letters, numbers, underscores and dashes, 2 to 30 characters.
      const name = event.type.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 30)
      const body = JSON.stringify({ name, properties: propertiesOf(event), occurred_at: iso(event.createdAt), is_syncing: false })
      return {
        url: joinUrl(baseUrl, `/3.0/lists/${encodeURIComponent(config.listId ?? '')}/members/${hash}/events`),
        body,
        headers: {
          authorization: `Basic ${Buffer.from(`evidence-hub:${config.apiKey}`).toString('base64')}`,
          'content-type': 'application/json'
        }
      }
    }
    case 'webhook': {
      const body = JSON.stringify({
        id: event.id,
        type: event.type,
        createdAt: iso(event.createdAt),
        storeEnvId: event.storeEnvId,
        data: event.data
      })
      return {
        url: baseUrl,
        body,
        headers: {
          'content-type': 'application/json',
          'x-service-event-id': event.id,
          'x-service-event-type': event.type,
          ...signatureHeaders(config.signingSecret ?? '', body, now, publicUrl, event.deliveryId)
        }
      }
    }
  }
}
