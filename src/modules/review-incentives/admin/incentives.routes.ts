import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { errors } from '../../../errors.js'
import { createIncentive, updateIncentive } from '../review-incentives.schemas.js'
import { type AdminContext, can, formErrorStatus, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'
import type { Services } from '../../../lib/module.js'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const CodesForm = Type.Object({ codes: Type.String({ maxLength: 110_000 }) })
/** Checkboxes are absent when unticked; numbers arrive as text and an empty field means "none". */
const RulesForm = Type.Object({
  type: Type.Optional(Type.String({ maxLength: 20 })),
  points: Type.Optional(Type.String({ maxLength: 20 })),
  minRating: Type.Optional(Type.String({ maxLength: 20 })),
  requiresMedia: Type.Optional(Type.String({ maxLength: 10 })),
  verifiedOnly: Type.Optional(Type.String({ maxLength: 10 }))
})
type RulesInput = Static<typeof RulesForm>

const MAX_CODES = 1000
const MAX_CODE_LENGTH = 100

function store (ctx: AdminContext) {
  if (!ctx.store) throw new errors.NotFound('Store environment')
  if (ctx.store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
  return ctx.store
}

/** A whole number in [min, max] or null for an empty field; anything else is refused in the form's words. */
function wholeNumber (text: string | undefined, label: string, min: number, max: number): number | null {
  const value = (text ?? '').trim()
  if (value === '') return null
  const n = /^[0-9]{1,10}$/.test(value) ? Number(value) : NaN
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new errors.InvalidRequest(`${label}: a whole number from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}`)
  }
  return n
}

/** The API's own body schema has the last word, so the page accepts exactly what the API accepts. */
function apiAccepts (schema: TSchema, body: unknown) {
  const first = Value.Errors(schema, body).First()
  if (first) throw new errors.InvalidRequest(`${first.path.replace(/^\//, '') || 'body'}: ${first.message}`)
}

function rulesFromForm (form: RulesInput) {
  return {
    points: wholeNumber(form.points, 'Points', 1, 1_000_000_000),
    minRating: wholeNumber(form.minRating, 'Minimum rating', 1, 5),
    requiresMedia: form.requiresMedia !== undefined,
    verifiedOnly: form.verifiedOnly !== undefined
  }
}

/** One code a line; blank lines are skipped. A repeated or over-long line refuses the whole paste. */
function codesFromText (text: string): string[] {
  const codes = text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean)
  if (codes.length === 0 || codes.length > MAX_CODES) throw new errors.InvalidRequest('Paste between 1 and 1,000 codes, one per line')
  const tooLong = codes.find((code) => [...code].length > MAX_CODE_LENGTH)
  if (tooLong) {
    throw new errors.InvalidRequest(
      `A code has at most ${MAX_CODE_LENGTH} characters: "${[...tooLong].slice(0, 20).join('')}…" has ${[...tooLong].length}`
    )
  }
  const seen = new Set<string>()
  for (const code of codes) {
    if (seen.has(code)) throw new errors.InvalidRequest(`"${code}" is pasted twice: each code once`)
    seen.add(code)
  }
  return codes
}

/**
 * Review incentives of the current store: create, edit and delete them (as /v1/review-incentives, through the same
 * service) and add codes to a coupon incentive's pool, one per line.
 */
export const incentivesPages: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const service = services.reviewIncentives

  async function listPage (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'review-incentives', 'read')
    const current = store(ctx)
    const incentives = await service.list(current.id, { page: 1, limit: 100 })
    return render(request, reply, 'review-incentives/admin/views/incentives', {
      title: 'Review incentives',
      store: current,
      incentives,
      canWrite: can(ctx, 'review-incentives', 'write'),
      values: {},
      ...extra
    }, status)
  }

  async function incentivePage (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    id: string,
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'review-incentives', 'read')
    const incentive = await service.get(store(ctx).id, id)
    const values = {
      points: incentive.points == null ? '' : String(incentive.points),
      minRating: incentive.minRating == null ? '' : String(incentive.minRating),
      requiresMedia: incentive.requiresMedia ? 'on' : undefined,
      verifiedOnly: incentive.verifiedOnly ? 'on' : undefined
    }
    return render(request, reply, 'review-incentives/admin/views/incentive', {
      title: 'Review incentive',
      incentive,
      canWrite: can(ctx, 'review-incentives', 'write'),
      values,
      codes: '',
      ...extra
    }, status)
  }

  app.get('/review-incentives', async (request, reply) => listPage(request, reply))

  app.post<{ Body: RulesInput }>('/review-incentives', { schema: { body: RulesForm } }, async (request, reply) => {
    const ctx = requireAccess(request, 'review-incentives', 'write')
    try {
      const type: 'coupon' | 'points' | null = request.body.type === 'coupon' || request.body.type === 'points' ? request.body.type : null
      if (!type) throw new errors.InvalidRequest('Choose a reward: a coupon code or points')
      const body = { type, ...rulesFromForm(request.body) }
      apiAccepts(createIncentive.body, body)
      const created = await service.create(store(ctx), body)
      setFlash(reply, {
        notice: created.type === 'coupon'
          ? 'Incentive created. Add codes to its pool: until then a qualifying review gets nothing.'
          : 'Incentive created.'
      })
      return redirect(reply, `/admin/review-incentives/${created.id}`)
    } catch (err) {
      return listPage(request, reply, { values: request.body, error: (err as Error).message }, formErrorStatus(err))
    }
  })

  app.get<{ Params: Static<typeof IdParams> }>(
    '/review-incentives/:id',
    { schema: { params: IdParams } },
    async (request, reply) => incentivePage(request, reply, request.params.id)
  )

  app.post<{ Params: Static<typeof IdParams>, Body: RulesInput }>('/review-incentives/:id', {
    schema: { params: IdParams, body: RulesForm }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'review-incentives', 'write')
    try {
      const current = await service.get(store(ctx).id, request.params.id)
      const body = rulesFromForm(request.body)
      apiAccepts(updateIncentive.body, body)
      await service.update(store(ctx), current.id, body)
      setFlash(reply, { notice: 'Incentive saved.' })
      return redirect(reply, `/admin/review-incentives/${current.id}`)
    } catch (err) {
      return incentivePage(request, reply, request.params.id, { values: request.body, error: (err as Error).message }, formErrorStatus(err))
    }
  })

  app.get<{ Params: Static<typeof IdParams> }>(
    '/review-incentives/:id/delete',
    { schema: { params: IdParams } },
    async (request, reply) => {
      const ctx = requireAccess(request, 'review-incentives', 'write')
      const incentive = await service.get(store(ctx).id, request.params.id)
      return render(request, reply, 'confirm', {
        title: 'Delete review incentive',
        question: `Delete this ${incentive.type === 'coupon' ? 'coupon' : `${incentive.points} points`} incentive?`,
        consequence: incentive.type === 'coupon'
          ? `Its ${incentive.pool.available} unused codes are deleted with it. Rewards already given stay; later reviews no longer qualify for it.`
          : 'Points already given stay; later reviews no longer qualify for it.',
        action: `/admin/review-incentives/${incentive.id}/delete`,
        button: 'Delete incentive',
        back: `/admin/review-incentives/${incentive.id}`
      })
    }
  )

  app.post<{ Params: Static<typeof IdParams> }>(
    '/review-incentives/:id/delete',
    { schema: { params: IdParams } },
    async (request, reply) => {
      const ctx = requireAccess(request, 'review-incentives', 'write')
      await service.remove(store(ctx), request.params.id)
      setFlash(reply, { notice: 'The incentive is deleted.' })
      return redirect(reply, '/admin/review-incentives')
    }
  )

  app.post<{ Params: Static<typeof IdParams>, Body: Static<typeof CodesForm> }>('/review-incentives/:id/codes', {
    schema: { params: IdParams, body: CodesForm }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'review-incentives', 'write')
    try {
      const result = await service.addCodes(store(ctx), request.params.id, codesFromText(request.body.codes))
      const skipped = result.duplicates > 0 ? ` ${result.duplicates} already in the pool, skipped.` : ''
      setFlash(reply, { notice: `${result.added} codes added.${skipped} ${result.pool.available} available.` })
      return redirect(reply, `/admin/review-incentives/${request.params.id}`)
    } catch (err) {
      return incentivePage(
        request,
        reply,
        request.params.id,
        { codes: request.body.codes, codesError: (err as Error).message },
        formErrorStatus(err)
      )
    }
  })
}
