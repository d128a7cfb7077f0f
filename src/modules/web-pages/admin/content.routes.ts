import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../../errors.js'
import type { FaqsService } from '../../faqs/index.js'
import { type WebPagesService } from '../web-pages.service.js'
import type { PlacementsService, PlacementInput } from '../../placements/index.js'
import { currentStore, can, formErrorStatus, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'

export interface ContentServices { faqs: FaqsService, webPages: WebPagesService, placements: PlacementsService }

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const FaqBody = Type.Object({
  question: Type.String({ maxLength: 500 }),
  answer: Type.String({ maxLength: 10_000 }),
  productId: Type.Optional(Type.String({ maxLength: 191 })),
  status: Type.Union([Type.Literal('draft'), Type.Literal('published')]),
  position: Type.Optional(Type.String({ maxLength: 7, pattern: '^[0-9]*$' }))
})
const StatusBody = Type.Object({ status: Type.Union([Type.Literal('draft'), Type.Literal('published')]) })
const PlacementBody = Type.Object({
  widget: Type.Union(['reviews', 'summary', 'gallery', 'faqs', 'badge'].map((w) => Type.Literal(w))),
  selector: Type.String({ maxLength: 300 }),
  productId: Type.Optional(Type.String({ maxLength: 191 })),
  galleryId: Type.Optional(Type.String({ maxLength: 64 }))
})
const EnabledBody = Type.Object({ enabled: Type.Union([Type.Literal('true'), Type.Literal('false')]) })
const PlacementParams = Type.Object({ id: Type.String({ maxLength: 64 }), placementId: Type.String({ maxLength: 64 }) })

const blank = (value: string | undefined) => (value?.trim() ? value.trim() : undefined)

/** FAQs, and the widget placements of each web page, for the current store (issue 15). */
export const contentPages: FastifyPluginAsync<{ services: ContentServices }> = async (app, { services }) => {
  async function faqsPage (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'faqs', 'read')
    const store = currentStore(ctx)
    const faqs = await services.faqs.list(store.id, { limit: 100 })
    const sorted = [...faqs.data].sort((a, b) => a.position - b.position || a.question.localeCompare(b.question))
    return render(request, reply, 'web-pages/admin/views/faqs', {
      title: 'FAQs',
      store,
      faqs: sorted,
      canWrite: can(ctx, 'faqs', 'write'),
      values: {},
      ...extra
    }, status)
  }

  app.get('/faqs', async (request, reply) => faqsPage(request, reply))

  app.post<{ Body: Static<typeof FaqBody> }>('/faqs', { schema: { body: FaqBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'faqs', 'write')
    const { question, answer, productId, status, position } = request.body
    try {
      if (!question.trim() || !answer.trim()) throw new errors.InvalidRequest('Write a question and its answer')
      await services.faqs.create(currentStore(ctx), {
        question: question.trim(),
        answer: answer.trim(),
        productId: blank(productId) ?? null,
        status,
        position: Number(position || 0)
      })
    } catch (err) {
      return faqsPage(request, reply, { error: (err as Error).message, values: request.body }, formErrorStatus(err))
    }
    setFlash(reply, { notice: 'The FAQ is saved.' })
    return redirect(reply, '/admin/faqs')
  })

  app.post<{ Params: Static<typeof IdParams>, Body: Static<typeof StatusBody> }>('/faqs/:id/status', {
    schema: { params: IdParams, body: StatusBody }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'faqs', 'write')
    await services.faqs.update(currentStore(ctx), request.params.id, { status: request.body.status })
    setFlash(reply, { notice: request.body.status === 'published' ? 'The FAQ is published.' : 'The FAQ is back to draft.' })
    return redirect(reply, '/admin/faqs')
  })

  app.post<{ Params: Static<typeof IdParams> }>('/faqs/:id/delete', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'faqs', 'write')
    await services.faqs.remove(currentStore(ctx), request.params.id)
    setFlash(reply, { notice: 'The FAQ is deleted.' })
    return redirect(reply, '/admin/faqs')
  })

  app.get('/web-pages', async (request, reply) => {
    const ctx = requireAccess(request, 'web-pages', 'read')
    const store = currentStore(ctx)
    const pages = await services.webPages.list(store.id, { limit: 100 })
    return render(request, reply, 'web-pages/admin/views/web-pages', { title: 'Pages and widgets', store, pages: pages.data })
  })

  async function placementsPage (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    id: string,
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'placements', 'read')
    const store = currentStore(ctx)
    const page = await services.webPages.get(store.id, id)
    const placements = await services.placements.list(store.id, { webPageId: page.id, limit: 100 })
    return render(request, reply, 'web-pages/admin/views/placements', {
      title: `Widgets on ${page.url}`,
      store,
      page,
      placements: placements.data,
      canWrite: can(ctx, 'placements', 'write'),
      values: {},
      ...extra
    }, status)
  }

  app.get<{ Params: Static<typeof IdParams> }>(
    '/web-pages/:id',
    { schema: { params: IdParams } },
    async (request, reply) => placementsPage(request, reply, request.params.id)
  )

  app.post<{ Params: Static<typeof IdParams>, Body: Static<typeof PlacementBody> }>('/web-pages/:id/placements', {
    schema: { params: IdParams, body: PlacementBody }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'placements', 'write')
    const { widget, selector, productId, galleryId } = request.body
    try {
      if (!selector.trim()) throw new errors.InvalidRequest('Give the CSS selector of the element the widget renders into')
      const settings = {
        ...(blank(productId) ? { productId: blank(productId) } : {}),
        ...(blank(galleryId) ? { galleryId: blank(galleryId) } : {})
      }
      await services.placements.create(currentStore(ctx), {
        webPageId: request.params.id,
        widget: widget as PlacementInput['widget'],
        selector: selector.trim(),
        settings
      })
    } catch (err) {
      return placementsPage(
        request,
        reply,
        request.params.id,
        { error: (err as Error).message, values: request.body },
        formErrorStatus(err)
      )
    }
    setFlash(reply, { notice: 'The widget is placed.' })
    return redirect(reply, `/admin/web-pages/${request.params.id}`)
  })

  app.post<{ Params: Static<typeof PlacementParams>, Body: Static<typeof EnabledBody> }>('/web-pages/:id/placements/:placementId', {
    schema: { params: PlacementParams, body: EnabledBody }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'placements', 'write')
    const store = currentStore(ctx)
    const placement = await services.placements.get(store.id, request.params.placementId)
    if (placement.webPageId !== request.params.id) throw new errors.NotFound('Placement')
    await services.placements.update(store, placement.id, { enabled: request.body.enabled === 'true' })
    setFlash(reply, { notice: request.body.enabled === 'true' ? 'The widget is shown.' : 'The widget is hidden.' })
    return redirect(reply, `/admin/web-pages/${request.params.id}`)
  })
}
