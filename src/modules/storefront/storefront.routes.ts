import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { StorefrontService } from './storefront.service.js'
import type { GalleryVisitorsService } from '../galleries/index.js'
import type { FaqsService } from '../faqs/index.js'
import type { PlacementsService } from '../placements/index.js'
import * as schemas from './storefront.schemas.js'
import { answerOf, MarkedCache, type Answer } from '../../lib/marked-cache.js'

interface Services { storefront: StorefrontService, galleries: GalleryVisitorsService, faqs: FaqsService, placements: PlacementsService }

/** Whether an If-None-Match header names this ETag (a list, weak forms and `*` included: RFC 9110 13.1.2). */
function matches (header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

/**
 * docs/contract/storefront.md#widget-reads: widget reads are cacheable for a minute by browsers and shared caches, and
 * revalidate for free: the ETag is a digest of the answer as sent, so it changes exactly when the answer does. With
 * `cache` and a marker value read by this request (plugins/storefront.ts), the answer comes from memory while that
 * value holds.
 */
async function answer (
  request: FastifyRequest,
  reply: FastifyReply,
  load: () => Promise<unknown>,
  cache?: { answers: MarkedCache<Answer>, key: string }
) {
  const seen = request.reviewsSeen
  const now = Date.now()
  let sent = cache && seen !== null ? cache.answers.get(cache.key, seen, now) : undefined
  if (!sent) {
    sent = answerOf(String(reply.serialize(await load())))
    if (cache && seen !== null) cache.answers.set(cache.key, sent, seen, now)
  }
  reply.header('ETag', sent.etag).header('Cache-Control', 'public, max-age=60').header('Vary', 'Origin, x-store-env-id')
  if (matches(request.headers['if-none-match'], sent.etag)) return reply.status(304).send()
  return reply.type('application/json; charset=utf-8').send(sent.body)
}

export const storefrontRoutes: FastifyPluginAsyncTypebox<Services> = async (app, services) => {
  // Only answers made of the store's reviews: its reviews marker moves with those (reviews.repository's `changed`).
  const answers = new MarkedCache<Answer>()
  const config = (
    limit: 'storefront.reviews' | 'storefront.summary' | 'storefront.galleries' | 'storefront.faqs' | 'storefront.placements'
  ) => ({ auth: 'storefront' as const, storefrontLimit: limit })

  app.get('/storefront/reviews', { schema: schemas.reviews, config: config('storefront.reviews') }, async (request, reply) => {
    const { productId, page, limit, updatedSince } = request.query
    const key = `reviews\0${request.store!.id}\0${productId}\0${page}\0${limit}\0${updatedSince ?? ''}`
    return answer(request, reply, () => services.storefront.reviews(request.store!.id, request.query), { answers, key })
  })

  app.get('/storefront/summary', { schema: schemas.summary, config: config('storefront.summary') }, async (request, reply) => {
    const key = `summary\0${request.store!.id}\0${request.query.productId}`
    return answer(request, reply, () => services.storefront.summary(request.store!.id, request.query.productId), { answers, key })
  })

  app.get('/storefront/galleries/:id', { schema: schemas.gallery, config: config('storefront.galleries') }, async (request, reply) => {
    return answer(request, reply, () => services.galleries.show(request.store!.id, request.params.id, request.query))
  })

  app.get('/storefront/faqs', { schema: schemas.faqs, config: config('storefront.faqs') }, async (request, reply) => {
    return answer(request, reply, () => services.faqs.storefront(request.store!.id, request.query))
  })

  app.get('/storefront/placements', { schema: schemas.placements, config: config('storefront.placements') }, async (request, reply) => {
    return answer(request, reply, () => services.placements.forPage(request.store!.id, request.query.url))
  })
}
