import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { errors } from '../../../errors.js'
import { DEFAULT_PROVIDER_EVENTS, PROVIDERS, type Provider } from '../../delivery/index.js'
import { EVENT_TYPES } from '../../events/index.js'
import { putTemplate } from '../email.schemas.js'
import { TEMPLATE_KEYS, isTemplateKey, type TemplateKey } from '../templates.js'
import { createSequence, MAX_DELAY_HOURS, type Step } from '../../email-sequences/index.js'
import { can, currentStore, formErrorStatus, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'
import type { Services } from '../../../lib/module.js'

/** The most steps a sequence has (the API's maxItems): the form always offers this many rows. */
const STEP_ROWS = 5
const StepFields = Object.fromEntries(Array.from({ length: STEP_ROWS }, (_, i) => [
  [`delay${i + 1}`, Type.Optional(Type.String({ maxLength: 20 }))],
  [`template${i + 1}`, Type.Optional(Type.String({ maxLength: 40 }))],
  [`stop${i + 1}`, Type.Optional(Type.String({ maxLength: 20 }))]
]).flat())

// Form schemas only bound the input; what the API would refuse is checked with its own schemas and shown on the form.
const KeyParams = Type.Object({ key: Type.String({ maxLength: 40 }) })
const TemplateBody = Type.Object({ subject: Type.String({ maxLength: 1000 }), body: Type.String({ maxLength: 20_000 }) })
const TestBody = Type.Object({ to: Type.String({ maxLength: 320 }) })
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const SequenceBody = Type.Object({
  name: Type.String({ maxLength: 500 }),
  active: Type.Optional(Type.String({ maxLength: 20 })),
  ...StepFields
})
const ProviderParams = Type.Object({ provider: Type.String({ maxLength: 20 }) })
const ProviderBody = Type.Object({
  apiKey: Type.Optional(Type.String({ maxLength: 500 })),
  baseUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  listId: Type.Optional(Type.String({ maxLength: 200 })),
  events: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })])),
  enabled: Type.Optional(Type.String({ maxLength: 20 }))
})
const PageQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })) })

type SequenceForm = Static<typeof SequenceBody> & Record<string, string | undefined>

/** Field names as the form labels them, for the API schema's complaints. */
const FIELD_LABELS: Record<string, string> = {
  subject: 'Subject',
  body: 'Text',
  name: 'Name',
  steps: 'Steps',
  delayHours: 'delay (hours)',
  templateKey: 'mail'
}

/** The first thing the API's schema refuses in `value`, in the words of the form; null when it would accept it. */
function refusal (schema: TSchema, value: unknown): string | null {
  const first = Value.Errors(schema, value).First()
  if (!first) return null
  const parts = first.path.split('/').filter(Boolean)
  const step = parts[0] === 'steps' && parts[1] !== undefined ? `Step ${Number(parts[1]) + 1} ` : ''
  const field = FIELD_LABELS[parts[parts.length - 1] ?? ''] ?? parts.join('.')
  const message = first.schema.pattern ? 'must not contain control characters' : first.message.replace(/^Expected /, 'expected ')
  return `${step}${step ? field : field.charAt(0).toUpperCase() + field.slice(1)}: ${message}`
}

function templateKeyOf (key: string): TemplateKey {
  if (!isTemplateKey(key)) throw new errors.NotFound('Template')
  return key
}

function providerOf (name: string): Provider {
  if (!(PROVIDERS as readonly string[]).includes(name)) throw new errors.NotFound('Email provider')
  return name as Provider
}

/** The form's rows as API steps: a row without a delay is unused; a delay that is not a number stays text for the schema to refuse. */
function stepsOf (form: SequenceForm): Array<Omit<Step, 'delayHours'> & { delayHours: number | string }> {
  const steps = []
  for (let i = 1; i <= STEP_ROWS; i++) {
    const delay = form[`delay${i}`]?.trim() ?? ''
    if (delay === '') continue
    steps.push({
      delayHours: /^\d{1,6}$/.test(delay) ? Number(delay) : delay,
      templateKey: (form[`template${i}`] ?? 'review_request') as Step['templateKey'],
      ...(form[`stop${i}`] ? { stopWhen: 'reviewed' as const } : {})
    })
  }
  return steps
}

type Req = FastifyRequest
type Rep = FastifyReply

/**
 * The rest of the email settings (issue 17): templates per key with a test send and a reset, the review-request
 * sequences, and the email providers with their delivery log. Each page calls the service its API route calls,
 * with the API's role table: viewers see the same pages read-only.
 */
export const emailSettingsPages: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  // Templates ---------------------------------------------------------------------------------------------------

  app.get('/email/templates', async (request, reply) => {
    const ctx = requireAccess(request, 'email', 'read')
    const store = currentStore(ctx)
    const templates = await Promise.all(TEMPLATE_KEYS.map((key) => services.email.getTemplate(store.id, key)))
    return render(request, reply, 'email/admin/views/email-templates', { title: 'Email templates', store, templates })
  })

  async function templatePage (request: Req, reply: Rep, key: TemplateKey, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'email', 'read')
    const store = currentStore(ctx)
    const template = await services.email.getTemplate(store.id, key)
    return render(request, reply, 'email/admin/views/email-template', {
      title: `Email template: ${key}`,
      store,
      template,
      values: { subject: template.subject, body: template.body },
      canWrite: can(ctx, 'email', 'write'),
      ...extra
    }, status)
  }

  app.get<{ Params: Static<typeof KeyParams> }>('/email/templates/:key', { schema: { params: KeyParams } }, async (request, reply) =>
    templatePage(request, reply, templateKeyOf(request.params.key)))

  app.post<{ Params: Static<typeof KeyParams>, Body: Static<typeof TemplateBody> }>('/email/templates/:key', {
    schema: { params: KeyParams, body: TemplateBody }
  }, async (request, reply) => {
    const key = templateKeyOf(request.params.key)
    const store = currentStore(requireAccess(request, 'email', 'write'))
    // Browsers send a textarea's line breaks as CRLF; the template keeps plain line breaks.
    const input = { subject: request.body.subject.trim(), body: request.body.body.replace(/\r\n/g, '\n') }
    try {
      const refused = refusal(putTemplate.body, input)
      if (refused) throw new errors.InvalidRequest(refused)
      await services.email.putTemplate(store, key, input)
    } catch (err) {
      return templatePage(request, reply, key, { values: input, error: (err as Error).message }, formErrorStatus(err))
    }
    setFlash(reply, { notice: 'The template is saved.' })
    return redirect(reply, `/admin/email/templates/${key}`)
  })

  app.post<{ Params: Static<typeof KeyParams>, Body: Static<typeof TestBody> }>('/email/templates/:key/test', {
    schema: { params: KeyParams, body: TestBody }
  }, async (request, reply) => {
    const key = templateKeyOf(request.params.key)
    const store = currentStore(requireAccess(request, 'email', 'write'))
    const to = request.body.to.trim()
    try {
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(to)) throw new errors.InvalidRequest('Enter a valid email address to send the test to')
      const outcome = await services.email.sendTest(store, { templateKey: key, to })
      setFlash(
        reply,
        outcome.status === 'suppressed' || outcome.status === 'failed'
          ? { error: `The test mail to ${to} was not sent: ${outcome.reason}` }
          : { notice: `A test mail is on its way to ${to}.` }
      )
    } catch (err) {
      return templatePage(request, reply, key, { testTo: to, error: (err as Error).message }, formErrorStatus(err))
    }
    return redirect(reply, `/admin/email/templates/${key}`)
  })

  app.post<{ Params: Static<typeof KeyParams> }>(
    '/email/templates/:key/reset',
    { schema: { params: KeyParams } },
    async (request, reply) => {
      const key = templateKeyOf(request.params.key)
      const store = currentStore(requireAccess(request, 'email', 'write'))
      await services.email.resetTemplate(store, key)
      setFlash(reply, { notice: 'The template is back to the default.' })
      return redirect(reply, `/admin/email/templates/${key}`)
    }
  )

  // Sequences ---------------------------------------------------------------------------------------------------

  app.get('/email/sequences', async (request, reply) => {
    const ctx = requireAccess(request, 'email-sequences', 'read')
    const store = currentStore(ctx)
    const sequences = await services.emailSequences.list(store.id, { limit: 50 })
    return render(request, reply, 'email/admin/views/email-sequences', {
      title: 'Review-request sequences',
      store,
      sequences,
      canWrite: can(ctx, 'email-sequences', 'write')
    })
  })

  /** A sequence's form: the stored one, what was typed after a refusal, or empty rows for a new one. */
  async function sequencePage (request: Req, reply: Rep, id: string | null, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'email-sequences', 'read')
    const store = currentStore(ctx)
    const sequence = id ? await services.emailSequences.get(store.id, id) : null
    const values: Record<string, string | undefined> = { name: sequence?.name ?? '', active: sequence?.active ? 'on' : undefined }
    sequence?.steps.forEach((s, i) => {
      values[`delay${i + 1}`] = String(s.delayHours)
      values[`template${i + 1}`] = s.templateKey
      values[`stop${i + 1}`] = s.stopWhen ? 'on' : undefined
    })
    if (!sequence) Object.assign(values, { delay1: '72', template1: 'review_request' })
    return render(request, reply, 'email/admin/views/email-sequence', {
      title: sequence ? `Sequence: ${sequence.name}` : 'New sequence',
      store,
      sequence,
      values,
      rows: STEP_ROWS,
      maxDelay: MAX_DELAY_HOURS,
      canWrite: can(ctx, 'email-sequences', 'write'),
      ...extra
    }, status)
  }

  app.get('/email/sequences/new', async (request, reply) => {
    requireAccess(request, 'email-sequences', 'write')
    return sequencePage(request, reply, null)
  })

  app.get<{ Params: Static<typeof IdParams> }>('/email/sequences/:id', { schema: { params: IdParams } }, async (request, reply) =>
    sequencePage(request, reply, request.params.id))

  /** Creates (id null) or replaces a sequence from the form, or shows the form again with the refusal. */
  async function saveSequence (request: FastifyRequest<{ Body: Static<typeof SequenceBody> }>, reply: Rep, id: string | null) {
    const store = currentStore(requireAccess(request, 'email-sequences', 'write'))
    const form = request.body as SequenceForm
    const input = { name: form.name.trim(), active: Boolean(form.active), steps: stepsOf(form) }
    try {
      const refused = input.steps.length === 0 ? 'Give at least one step a delay' : refusal(createSequence.body, input)
      if (refused) throw new errors.InvalidRequest(refused)
      const checked = input as typeof input & { steps: Step[] }
      const saved = id ? await services.emailSequences.replace(store, id, checked) : await services.emailSequences.create(store, checked)
      setFlash(reply, { notice: `The sequence “${saved.name}” is saved${saved.active ? ' and active' : ''}.` })
      return redirect(reply, '/admin/email/sequences')
    } catch (err) {
      const status = formErrorStatus(err)
      return sequencePage(request, reply, id, { values: form, error: (err as Error).message }, status)
    }
  }

  app.post<{ Body: Static<typeof SequenceBody> }>('/email/sequences', { schema: { body: SequenceBody } }, async (request, reply) =>
    saveSequence(request, reply, null))

  app.post<{ Params: Static<typeof IdParams>, Body: Static<typeof SequenceBody> }>('/email/sequences/:id', {
    schema: { params: IdParams, body: SequenceBody }
  }, async (request, reply) => saveSequence(request, reply, request.params.id))

  app.post<{ Params: Static<typeof IdParams> }>('/email/sequences/:id/delete', { schema: { params: IdParams } }, async (request, reply) => {
    const store = currentStore(requireAccess(request, 'email-sequences', 'write'))
    await services.emailSequences.remove(store, request.params.id)
    setFlash(reply, { notice: 'The sequence is deleted; requests under way stop after the step they are at.' })
    return redirect(reply, '/admin/email/sequences')
  })

  // Providers ---------------------------------------------------------------------------------------------------

  /** A provider's configuration, or null while it has none. */
  async function configured (storeId: string, provider: Provider) {
    try {
      return await services.emailProviders.get(storeId, provider)
    } catch (err) {
      if (err instanceof errors.NotFound) return null
      throw err
    }
  }

  app.get('/email/providers', async (request, reply) => {
    const ctx = requireAccess(request, 'email', 'read')
    const store = currentStore(ctx)
    const providers = await Promise.all(PROVIDERS.map(async (name) => ({ name, config: await configured(store.id, name) })))
    return render(request, reply, 'email/admin/views/email-providers', { title: 'Email providers', store, providers })
  })

  async function providerPage (
    request: Req,
    reply: Rep,
    provider: Provider,
    query: Static<typeof PageQuery>,
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'email', 'read')
    const store = currentStore(ctx)
    const config = await configured(store.id, provider)
    const attempts = config ? await services.emailProviders.deliveries(store.id, provider, { page: query.page ?? 1, limit: 50 }) : null
    const values = {
      baseUrl: config?.baseUrl ?? '',
      listId: config?.listId ?? '',
      events: config?.events ?? DEFAULT_PROVIDER_EVENTS,
      enabled: config ? config.enabled : true
    }
    return render(request, reply, 'email/admin/views/email-provider', {
      title: `Email provider: ${provider}`,
      store,
      provider,
      config,
      attempts,
      values,
      eventTypes: EVENT_TYPES,
      canWrite: can(ctx, 'email', 'write'),
      ...extra
    }, status)
  }

  app.get<{ Params: Static<typeof ProviderParams>, Querystring: Static<typeof PageQuery> }>('/email/providers/:provider', {
    schema: { params: ProviderParams, querystring: PageQuery }
  }, async (request, reply) => providerPage(request, reply, providerOf(request.params.provider), request.query))

  app.post<{ Params: Static<typeof ProviderParams>, Body: Static<typeof ProviderBody> }>('/email/providers/:provider', {
    schema: { params: ProviderParams, body: ProviderBody }
  }, async (request, reply) => {
    const provider = providerOf(request.params.provider)
    const ctx = requireAccess(request, 'email', 'write')
    const store = currentStore(ctx)
    const { apiKey, baseUrl, listId } = Object.fromEntries(
      ['apiKey', 'baseUrl', 'listId'].map((f) => [f, (request.body as Record<string, string | undefined>)[f]?.trim() || undefined])
    )
    const events = ([] as string[]).concat(request.body.events ?? [])
    const enabled = Boolean(request.body.enabled)
    try {
      if (events.length === 0) throw new errors.InvalidRequest('Choose the events to push')
      if (apiKey && apiKey.length > 200) throw new errors.InvalidRequest('API key: at most 200 characters')
      if (listId && !/^[A-Za-z0-9_-]{1,100}$/.test(listId)) throw new errors.InvalidRequest('Audience id: letters, digits, - and _ only')
      if (baseUrl && !/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new errors.InvalidRequest('Base URL: give an http(s) URL')
      const saved = await services.emailProviders.put(ctx.actor, store, provider, { apiKey, baseUrl, listId, events, enabled })
      setFlash(
        reply,
        saved.signingSecret
          ? { once: { title: 'Webhook provider configured', label: `Signing secret for ${saved.baseUrl}:`, value: saved.signingSecret } }
          : { notice: `${provider} is saved.` }
      )
    } catch (err) {
      const status = formErrorStatus(err)
      // The key typed is never sent back to the browser.
      return providerPage(request, reply, provider, {}, {
        values: { baseUrl: baseUrl ?? '', listId: listId ?? '', events, enabled },
        error: (err as Error).message
      }, status)
    }
    return redirect(reply, `/admin/email/providers/${provider}`)
  })

  app.post<{ Params: Static<typeof ProviderParams> }>(
    '/email/providers/:provider/remove',
    { schema: { params: ProviderParams } },
    async (request, reply) => {
      const provider = providerOf(request.params.provider)
      const ctx = requireAccess(request, 'email', 'write')
      await services.emailProviders.remove(ctx.actor, currentStore(ctx), provider)
      setFlash(reply, { notice: `${provider} is removed: no more events are pushed to it.` })
      return redirect(reply, '/admin/email/providers')
    }
  )
}
