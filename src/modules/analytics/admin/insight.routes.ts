import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { distributionChart, trendChart } from '../../admin/index.js'
import { currentStore, formErrorStatus, render, requireAccess } from '../../admin/index.js'
import type { Services } from '../../../lib/module.js'

const AnalyticsQuery = Type.Object({
  interval: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')])),
  from: Type.Optional(Type.String({ maxLength: 10 })),
  to: Type.Optional(Type.String({ maxLength: 10 })),
  productId: Type.Optional(Type.String({ maxLength: 191 }))
})
const EvidenceQuery = Type.Object({ productId: Type.Optional(Type.String({ maxLength: 191 })) })

const blank = (value: string | undefined) => value?.trim() || undefined

/** Analytics with server-rendered charts, and the evidence of a product as shoppers and search engines get it. */
export const insightPages: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Querystring: Static<typeof AnalyticsQuery> }>(
    '/analytics',
    { schema: { querystring: AnalyticsQuery } },
    async (request, reply) => {
      const store = currentStore(requireAccess(request, 'analytics', 'read'))
      const query = {
        interval: request.query.interval ?? 'week',
        from: blank(request.query.from),
        to: blank(request.query.to),
        productId: blank(request.query.productId)
      }
      try {
        const [reviews, funnel, engagement] = await Promise.all([
          services.analytics.reviews(store.id, {
            ...query,
            from: query.from ?? (query.to ? undefined : defaultFrom(query.interval, app.clock()))
          }),
          services.analytics.reviewRequests(store.id),
          services.analytics.storefront(store.id, { interval: query.interval, from: query.from, to: query.to })
        ])
        const points = reviews.series.map((p) => ({ label: p.period, count: p.count, average: p.averageRating }))
        return render(request, reply, 'analytics/admin/views/analytics', {
          title: 'Analytics',
          store,
          query,
          reviews,
          funnel,
          engagement,
          trend: trendChart(points, `Reviews per ${query.interval} and average rating`),
          distribution: distributionChart(reviews.distribution)
        })
      } catch (err) {
        return render(request, reply, 'analytics/admin/views/analytics', {
          title: 'Analytics',
          store,
          query,
          error: (err as Error).message
        }, formErrorStatus(err))
      }
    }
  )

  app.get<{ Querystring: Static<typeof EvidenceQuery> }>(
    '/evidence',
    { schema: { querystring: EvidenceQuery } },
    async (request, reply) => {
      const store = currentStore(requireAccess(request, 'evidence', 'read'))
      const productId = blank(request.query.productId)
      if (!productId) return render(request, reply, 'analytics/admin/views/evidence', { title: 'Evidence', store, productId: '' })
      try {
        const evidence = await services.evidence.get(store.id, productId)
        const jsonLd = JSON.stringify(await services.evidence.jsonLd(store.id, productId), null, 2)
        return render(request, reply, 'analytics/admin/views/evidence', {
          title: 'Evidence',
          store,
          productId,
          evidence,
          jsonLd,
          distribution: distributionChart(evidence.rating.distribution)
        })
      } catch (err) {
        return render(request, reply, 'analytics/admin/views/evidence', {
          title: 'Evidence',
          store,
          productId,
          error: (err as Error).message
        }, formErrorStatus(err))
      }
    }
  )
}

/** The page opens on a useful window per interval: 30 days, 12 weeks or 12 months up to today. */
function defaultFrom (interval: 'day' | 'week' | 'month', now: number): string | undefined {
  if (interval === 'day') return undefined
  const days = interval === 'week' ? 7 * 12 - 1 : 365
  return new Date(now - days * 86_400_000).toISOString().slice(0, 10)
}
