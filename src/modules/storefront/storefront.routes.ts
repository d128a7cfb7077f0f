import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { StorefrontService } from './storefront.service.js'
import type { GalleryVisitorsService } from '../galleries/gallery-visitors.service.js'
import type { FaqsService } from '../faqs/faqs.service.js'
import type { PlacementsService } from '../placements/placements.service.js'
import * as schemas from './storefront.schemas.js'

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
 * decisions.md section 15: widget reads are cacheable for a minute by browsers and shared caches, and revalidate for
 * free: the ETag is a digest of the answer, so it changes exactly when the answer does.
 */
function cached (request: FastifyRequest, reply: FastifyReply, body: unknown) {
  const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`
  reply.header('ETag', etag).header('Cache-Control', 'public, max-age=60').header('Vary', 'Origin, x-store-env-id')
  if (matches(request.headers['if-none-match'], etag)) return reply.status(304).send()
  return reply.send(body)
}

export const storefrontRoutes: FastifyPluginAsyncTypebox<Services> = async (app, services) => {
  const config = (limit: 'storefront.reviews' | 'storefront.summary' | 'storefront.galleries' | 'storefront.faqs' | 'storefront.placements') =>
    ({ auth: 'storefront' as const, storefrontLimit: limit })

  app.get('/storefront/reviews', { schema: schemas.reviews, config: config('storefront.reviews') }, async (request, reply) => {
    return cached(request, reply, await services.storefront.reviews(request.store!.id, request.query))
  })

  app.get('/storefront/summary', { schema: schemas.summary, config: config('storefront.summary') }, async (request, reply) => {
    return cached(request, reply, await services.storefront.summary(request.store!.id, request.query.productId))
  })

  app.get('/storefront/galleries/:id', { schema: schemas.gallery, config: config('storefront.galleries') }, async (request, reply) => {
    return cached(request, reply, await services.galleries.show(request.store!.id, request.params.id, request.query))
  })

  app.get('/storefront/faqs', { schema: schemas.faqs, config: config('storefront.faqs') }, async (request, reply) => {
    return cached(request, reply, await services.faqs.storefront(request.store!.id, request.query.productId))
  })

  app.get('/storefront/placements', { schema: schemas.placements, config: config('storefront.placements') }, async (request, reply) => {
    return cached(request, reply, await services.placements.forPage(request.store!.id, request.query.url))
  })
}
