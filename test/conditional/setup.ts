import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, manualClock, sharedApp } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'

/** A fresh tenant with one product and one pending review (from the storefront form). */
export async function withReview (app: FastifyInstance): Promise<{ tenant: Tenant, as: { key: string, store: string }, id: string }> {
  const tenant = await makeTenant(app)
  const as = { key: tenant.key, store: tenant.storeId }
  await call(app, { method: 'PUT', url: '/v1/products', ...as, payload: { products: [{ platformProductId: 'p1' }] } })
  const submitted = await storefront(app, {
    url: '/v1/reviews',
    store: tenant.storeId,
    payload: { productId: 'p1', rating: 4, body: 'Nice', authorName: 'Ann', authorEmail: 'ann@example.test' }
  })
  if (submitted.statusCode !== 201) throw new Error(`review not submitted: ${submitted.body}`)
  return { tenant, as, id: submitted.json().id }
}

/** A review on the shared app, with its GET, PATCH and DELETE sending the conditional headers a test gives. */
export async function reviewApp (t: Test) {
  const app = await sharedApp()
  const review = await withReview(app)
  const url = `/v1/reviews/${review.id}`
  const get = (headers: Record<string, string> = {}) => call(app, { method: 'GET', url, ...review.as, headers })
  const patch = (payload: object, headers: Record<string, string> = {}) =>
    call(app, { method: 'PATCH', url, ...review.as, headers, payload })
  const remove = (headers: Record<string, string> = {}) => call(app, { method: 'DELETE', url, ...review.as, headers })
  return { app, ...review, get, patch, remove }
}

/** An app whose clock the test moves, to stay under the per-credential rate limit over many requests. */
export async function clockedReviewApp (t: Test) {
  const clock = manualClock()
  const app = await build(t, { clock })
  return { app, clock, ...await withReview(app) }
}
