import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../../errors.js'
import { currentStore, can, formErrorStatus, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'
import type { Services } from '../../../lib/module.js'

const PageQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) })
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const AffiliateBody = Type.Object({
  name: Type.String({ maxLength: 200 }),
  code: Type.String({ maxLength: 64 }),
  commissionRate: Type.String({ maxLength: 16 }),
  customerId: Type.Optional(Type.String({ maxLength: 64 }))
})
const RatesBody = Type.Object({ rates: Type.String({ maxLength: 200 * 32 }) })

/** "EUR 1.08" a line (or "EUR=1.08"); blank lines are skipped. */
function ratesFromText (text: string): Record<string, string> {
  const rates: Record<string, string> = {}
  for (const line of text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean)) {
    const match = /^([A-Za-z]{3})\s*[=:\s]\s*(\S+)$/.exec(line)
    if (!match) throw new errors.InvalidRequest(`Write each rate as "EUR 1.08": "${line.slice(0, 40)}" is not`)
    rates[match[1].toUpperCase()] = match[2]
  }
  return rates
}

const ratesText = (rates: Record<string, string>) => Object.entries(rates).map(([currency, rate]) => `${currency} ${rate}`).join('\n')

/** Affiliates of the current store: list and create, the USD rates of the cap, one affiliate's referrals and earnings. */
export const affiliatesPages: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const service = services.affiliates

  async function page (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    pageNo: number,
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'affiliates', 'read')
    const store = currentStore(ctx)
    const affiliates = await service.list(store.id, { page: pageNo, limit: 50 })
    const settings = await service.settings(store.id)
    return render(request, reply, 'affiliates/admin/views/affiliates', {
      title: 'Affiliates',
      store,
      affiliates,
      canWrite: can(ctx, 'affiliates', 'write'),
      rates: ratesText(settings.usdRates),
      values: {},
      ...extra
    }, status)
  }

  app.get<{ Querystring: Static<typeof PageQuery> }>(
    '/affiliates',
    { schema: { querystring: PageQuery } },
    async (request, reply) => page(request, reply, request.query.page ?? 1)
  )

  app.post<{ Body: Static<typeof AffiliateBody> }>('/affiliates', { schema: { body: AffiliateBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'affiliates', 'write')
    const { name, code, commissionRate, customerId } = request.body
    try {
      if (!/^(0(\.[0-9]{1,4})?|1(\.0{1,4})?)$/.test(commissionRate.trim())) {
        throw new errors.InvalidRequest('The rate is a fraction from 0 to 1 with at most four decimals, e.g. 0.1 for 10 %')
      }
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(code.trim())) throw new errors.InvalidRequest('A code has letters, digits, _ and - only')
      if (!name.trim()) throw new errors.InvalidRequest('Give the affiliate a name')
      const created = await service.create(currentStore(ctx), {
        name: name.trim(),
        code: code.trim(),
        commissionRate: commissionRate.trim(),
        customerId: customerId?.trim() || null
      })
      setFlash(reply, { notice: `Affiliate ${created.name} created with the code ${created.code}.` })
      return redirect(reply, '/admin/affiliates')
    } catch (err) {
      return page(request, reply, 1, { values: request.body, error: (err as Error).message }, formErrorStatus(err))
    }
  })

  app.post<{ Body: Static<typeof RatesBody> }>('/affiliates/settings', { schema: { body: RatesBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'affiliates', 'write')
    try {
      const rates = ratesFromText(request.body.rates)
      for (const rate of Object.values(rates)) {
        if (!/^[0-9]{1,6}(\.[0-9]{1,8})?$/.test(rate)) {
          throw new errors.InvalidRequest(`"${rate.slice(0, 20)}" is not a rate: write USD per unit, e.g. 1.08`)
        }
      }
      await service.saveSettings(currentStore(ctx), rates)
      setFlash(reply, { notice: 'USD rates saved. Referrals that waited for a rate are settled.' })
      return redirect(reply, '/admin/affiliates')
    } catch (err) {
      return page(request, reply, 1, { rates: request.body.rates, ratesError: (err as Error).message }, formErrorStatus(err))
    }
  })

  app.get<{ Params: Static<typeof IdParams>, Querystring: Static<typeof PageQuery> }>('/affiliates/:id', {
    schema: { params: IdParams, querystring: PageQuery }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'affiliates', 'read')
    const store = currentStore(ctx)
    const affiliate = await service.get(store.id, request.params.id)
    const referrals = await service.referrals(store.id, affiliate.id, { page: request.query.page ?? 1, limit: 50 })
    const totals = await service.totals(store.id, affiliate.id)
    return render(request, reply, 'affiliates/admin/views/affiliate', {
      title: `Affiliate ${affiliate.name}`,
      affiliate,
      referrals,
      totals,
      canWrite: can(ctx, 'affiliates', 'write')
    })
  })

  app.get<{ Params: Static<typeof IdParams> }>('/affiliates/:id/delete', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'affiliates', 'write')
    const affiliate = await service.get(currentStore(ctx).id, request.params.id)
    return render(request, reply, 'confirm', {
      title: 'Delete affiliate',
      question: `Delete ${affiliate.name} (code ${affiliate.code})?`,
      consequence: 'Its referrals and their commissions are deleted with it. Later orders with the code record nothing.',
      action: `/admin/affiliates/${affiliate.id}/delete`,
      button: 'Delete affiliate',
      back: `/admin/affiliates/${affiliate.id}`
    })
  })

  app.post<{ Params: Static<typeof IdParams> }>('/affiliates/:id/delete', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'affiliates', 'write')
    await service.remove(currentStore(ctx), request.params.id)
    setFlash(reply, { notice: 'The affiliate is deleted.' })
    return redirect(reply, '/admin/affiliates')
  })
}
