import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { toPage } from '../../../lib/pagination.js'
import { type ReviewsRepository, type ReviewRow } from '../reviews.repository.js'
import { presentReview, type ReviewsService } from '../reviews.service.js'
import type { GalleriesService } from '../../galleries/index.js'
import { currentStore, can, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'

export interface ModerationServices { reviews: ReviewsService, reviewsRepo: ReviewsRepository, galleries: GalleriesService }

const Status = Type.Union([Type.Literal('pending'), Type.Literal('published'), Type.Literal('rejected')])
const ReviewQuery = Type.Object({ status: Type.Optional(Status), page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) })
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const Moderate = Type.Object({ status: Type.Optional(Status), reply: Type.Optional(Type.String({ maxLength: 5000 })) })
const PhotoQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]))
})
const PhotoParams = Type.Object({ id: Type.String({ maxLength: 64 }), photoId: Type.String({ maxLength: 64 }) })
const PhotoBody = Type.Object({ status: Type.Union([Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('pending')]) })

/**
 * A review as the moderator sees it: everything, including the reviewer's full address — this page is the only place it
 * is shown (docs/contract/catalog.md#reviewer-email keeps the API to its last four characters), so the shop can answer.
 */
function forModerator (row: ReviewRow) {
  return { ...presentReview(row), authorEmail: row.author_email }
}

/** A same-origin path for an upload URL, so the admin page's CSP (img-src 'self') lets it show. */
const localPath = (url: string) => new URL(url).pathname

/** Review moderation (publish, reject, reply) and gallery photo moderation for the current store. */
export const moderationPages: FastifyPluginAsync<{ services: ModerationServices }> = async (app, { services }) => {
  app.get<{ Querystring: Static<typeof ReviewQuery> }>('/reviews', { schema: { querystring: ReviewQuery } }, async (request, reply) => {
    const ctx = requireAccess(request, 'reviews', 'read')
    const store = currentStore(ctx)
    const status = request.query.status ?? 'pending'
    const page = toPage({ page: request.query.page, limit: 20 })
    const { total, rows } = await services.reviewsRepo.list(store.id, { status }, page)
    const reviews = rows.map(forModerator).map((r) => ({ ...r, media: r.media.map((m) => ({ ...m, url: localPath(m.url) })) }))
    return render(request, reply, 'reviews/admin/views/reviews', {
      title: 'Reviews',
      store,
      status,
      reviews,
      total,
      page,
      canWrite: can(ctx, 'reviews', 'write')
    })
  })

  app.post<{ Params: Static<typeof IdParams>, Body: Static<typeof Moderate> }>('/reviews/:id', {
    schema: { params: IdParams, body: Moderate }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'reviews', 'write')
    const store = currentStore(ctx)
    const before = await services.reviews.get(store.id, request.params.id)
    const replyText = request.body.reply === undefined ? undefined : (request.body.reply.trim() || null)
    await services.reviews.update(store, before.id, { status: request.body.status, reply: replyText })
    setFlash(reply, { notice: request.body.status ? `The review is ${request.body.status}.` : 'The reply is saved.' })
    return redirect(reply, `/admin/reviews?status=${before.status}`)
  })

  app.get<{ Params: Static<typeof IdParams>, Querystring: Static<typeof PhotoQuery> }>('/galleries/:id/photos', {
    schema: { params: IdParams, querystring: PhotoQuery }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'galleries', 'read')
    const store = currentStore(ctx)
    const gallery = await services.galleries.get(store.id, request.params.id)
    const status = request.query.status ?? 'pending'
    const photos = await services.galleries.photos(store.id, gallery.id, { status, limit: 100 })
    const shown = photos.data.map((p) => ({ ...p, imageUrl: localPath(p.imageUrl) }))
    return render(request, reply, 'reviews/admin/views/gallery-photos', {
      title: `Photos of ${gallery.name}`,
      store,
      gallery,
      status,
      photos: shown,
      canWrite: can(ctx, 'galleries', 'write')
    })
  })

  app.post<{ Params: Static<typeof PhotoParams>, Body: Static<typeof PhotoBody> }>('/galleries/:id/photos/:photoId', {
    schema: { params: PhotoParams, body: PhotoBody }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'galleries', 'write')
    await services.galleries.moderate(currentStore(ctx), request.params.id, request.params.photoId, request.body.status)
    setFlash(reply, { notice: `The photo is ${request.body.status}.` })
    return redirect(reply, `/admin/galleries/${request.params.id}/photos`)
  })

  app.get('/galleries', async (request, reply) => {
    const ctx = requireAccess(request, 'galleries', 'read')
    const store = currentStore(ctx)
    const galleries = await services.galleries.list(store.id, { limit: 100 })
    return render(request, reply, 'reviews/admin/views/galleries', { title: 'Galleries', store, galleries: galleries.data })
  })
}
