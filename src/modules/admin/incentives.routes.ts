import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { type AdminContext, can, formErrorStatus, redirect, render, requireAccess } from './context.js'
import { setFlash } from './flash.js'
import type { AdminServices } from './services.js'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const CodesForm = Type.Object({ codes: Type.String({ maxLength: 110_000 }) })

function store (ctx: AdminContext) {
  if (!ctx.store) throw new errors.NotFound('Store environment')
  if (ctx.store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
  return ctx.store
}

/** Review incentives of the current store with their code pools; codes are added one per line. */
export const incentivesRoutes: FastifyPluginAsync<{ services: AdminServices }> = async (app, { services }) => {
  async function page (request: Parameters<typeof render>[0], reply: Parameters<typeof render>[1], extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'review-incentives', 'read')
    const current = store(ctx)
    const incentives = await services.incentives.list(current.id, { page: 1, limit: 100 })
    return render(request, reply, 'incentives', { title: 'Review incentives', store: current, incentives, canWrite: can(ctx, 'review-incentives', 'write'), ...extra }, status)
  }

  app.get('/review-incentives', async (request, reply) => page(request, reply))

  app.post<{ Params: Static<typeof IdParams>, Body: Static<typeof CodesForm> }>('/review-incentives/:id/codes', { schema: { params: IdParams, body: CodesForm } }, async (request, reply) => {
    const ctx = requireAccess(request, 'review-incentives', 'write')
    const codes = request.body.codes.split(/\r?\n/).map((line) => line.trim()).filter(Boolean)
    try {
      if (codes.length === 0 || codes.length > 1000) throw new errors.InvalidRequest('Paste between 1 and 1,000 codes, one per line')
      const tooLong = codes.find((code) => [...code].length > 100)
      if (tooLong) throw new errors.InvalidRequest('A code has at most 100 characters')
      const result = await services.incentives.addCodes(store(ctx), request.params.id, codes)
      setFlash(reply, { notice: `${result.added} codes added (${result.duplicates} already in the pool); ${result.pool.available} available.` })
      return redirect(reply, '/admin/review-incentives')
    } catch (err) {
      return page(request, reply, { error: (err as Error).message, errorFor: request.params.id }, formErrorStatus(err))
    }
  })
}
