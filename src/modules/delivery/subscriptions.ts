import { errors } from '../../errors.js'
import { base62, newId } from '../../lib/ids.js'
import { encrypt } from '../../lib/secrets.js'
import type { SubscriptionKind, SubscriptionRow } from './subscriptions.repository.js'
import { checkUrl, UnsafeUrlError } from './url-guard.js'

export const SECRET_PREFIX = 'whsec_'

export interface NewSubscription {
  kind: SubscriptionKind
  orgId: string
  storeId: string
  url: string
  events: string[]
  description?: string | null
  createdBy: string
  now: number
}

/** Both kinds start here: the URL is checked (SSRF), a `whsec_` secret made, and only its sealed form kept. */
export async function newSubscription (
  input: NewSubscription,
  secretKey: string,
  allowPrivate: boolean
): Promise<{ row: SubscriptionRow, secret: string }> {
  try {
    await checkUrl(input.url, allowPrivate)
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw new errors.InvalidUrl(err.message)
    throw err
  }
  const secret = SECRET_PREFIX + base62(32)
  const row: SubscriptionRow = {
    id: newId(input.kind === 'hook' ? 'hook' : 'whk'),
    org_id: input.orgId,
    store_env_id: input.storeId,
    kind: input.kind,
    url: input.url,
    events: JSON.stringify(input.events),
    description: input.description ?? null,
    secret_sealed: encrypt(secret, secretKey),
    status: 'active',
    status_reason: null,
    status_changed_at: null,
    consecutive_failures: 0,
    created_by: input.createdBy,
    created_at: input.now
  }
  return { row, secret }
}
