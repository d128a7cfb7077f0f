import type { FastifyInstance } from 'fastify'
import { call, manualClock } from '../helper.js'
import type { Tenant } from '../factories.js'
import { makeCustomers, setSettings } from '../loyalty/support.js'
import type { StoreEnv } from '../../src/types.js'
import { parseMail, type Received } from './smtp.js'

/**
 * The reward-mail tests' clock: 17 August, a date no other test file gives a birthday to, so the birthday job
 * (which runs over every store) grants nothing another file counts.
 */
export const rewardClock = () => manualClock(Date.parse('2026-08-17T09:00:00Z'))
export const TODAY = { month: 8, day: 17 }

let n = 0
export const address = (what: string) => `${what}-${++n}-${Date.now()}@example.test`

export const api = (
  app: FastifyInstance,
  tenant: Tenant,
  method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object
) => call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })

/** A customer whose birthday is today in a store with a birthday reward of `points`; answers the customer's id. */
export async function birthdayCustomer (
  app: FastifyInstance,
  tenant: Tenant,
  email: string,
  firstName: string | null = 'Maya',
  points = 200
): Promise<string> {
  await setSettings(app, tenant.storeId, { birthdayReward: { points } })
  const ids = await makeCustomers(app, tenant.storeId, [{ platformCustomerId: email, email, firstName, birthday: TODAY }])
  return ids[email]
}

/** The messages the SMTP server took for `to`, parsed. */
export const mailsTo = (messages: Received[], to: string) => messages.filter((m) => m.to.includes(to)).map((m) => parseMail(m.raw))

export async function storeOf (app: FastifyInstance, tenant: Tenant) {
  return (await app.services.stores.find(tenant.storeId)) as StoreEnv
}

/** A published review of product `p1` (named `title`) by `email`, through the services (no storefront limits). */
export async function publishedReview (app: FastifyInstance, tenant: Tenant, email: string, title = 'Linen shirt') {
  const store = await storeOf(app, tenant)
  await app.services.products.upsert(store, [{ platformProductId: 'p1', title }])
  const { id } = await app.services.reviews.submit(store, {
    productId: 'p1',
    rating: 5,
    body: 'Lovely',
    authorName: 'Ann',
    authorEmail: email
  })
  const res = await api(app, tenant, 'PATCH', `/v1/reviews/${id}`, { status: 'published' })
  if (res.statusCode !== 200) throw new Error(`publishing failed: ${res.body}`)
  return id
}
