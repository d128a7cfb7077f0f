import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../../errors.js'
import { TEMPLATE_KEYS, isTemplateKey } from '../templates.js'
import { currentStore, can, formErrorStatus, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'
import type { Services } from '../../../lib/module.js'

const BrandingBody = Type.Object({
  fromName: Type.Optional(Type.String({ maxLength: 100 })),
  primaryColor: Type.Optional(Type.String({ maxLength: 7 })),
  footerText: Type.Optional(Type.String({ maxLength: 1000 }))
})
const SuppressionBody = Type.Object({ email: Type.String({ maxLength: 320 }), reason: Type.Optional(Type.String({ maxLength: 16 })) })
const DomainBody = Type.Object({ domain: Type.String({ maxLength: 254 }) })
// A checkbox is sent when ticked and left out when not.
const SettingsBody = Type.Object({
  loyaltyRewardMails: Type.Optional(Type.String({ maxLength: 20 })),
  reviewIncentiveMails: Type.Optional(Type.String({ maxLength: 20 }))
})
const PreviewQuery = Type.Object({ templateKey: Type.Optional(Type.String({ maxLength: 40 })) })

/** Branding, preview, the reward mails, suppressions, the message log, sequences and the sending domain of the current store. */
export const emailPages: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  async function page (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'email', 'read')
    const store = currentStore(ctx)
    const [branding, settings, messages, suppressions, sequences, domain] = await Promise.all([
      services.emailBranding.get(store.id),
      services.emailSettings.settingsOf(store.id),
      services.email.listMessages(ctx.actor, store, { limit: 20 }),
      can(ctx, 'email-suppressions', 'read') ? services.emailSuppressions.list(store.id, { limit: 50 }) : null,
      services.emailSequences.list(store.id, { limit: 20 }),
      services.sendingDomain.get(store.id).catch(() => null)
    ])
    return render(request, reply, 'email/admin/views/email', {
      title: 'Email',
      store,
      branding,
      settings,
      messages,
      suppressions,
      sequences,
      domain,
      templateKeys: TEMPLATE_KEYS,
      canBrand: can(ctx, 'email-branding', 'write'),
      canSettings: can(ctx, 'email', 'write'),
      canSuppress: can(ctx, 'email-suppressions', 'write'),
      canDomain: can(ctx, 'sending-domain', 'write'),
      ...extra
    }, status)
  }

  /** Runs a form's change and comes back to the page, with the service's own message on a refusal. */
  async function act (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    notice: string,
    work: () => Promise<unknown>
  ) {
    try {
      await work()
      setFlash(reply, { notice })
      return redirect(reply, '/admin/email')
    } catch (err) {
      return page(request, reply, { error: (err as Error).message }, formErrorStatus(err))
    }
  }

  app.get('/email', async (request, reply) => page(request, reply))

  app.get<{ Querystring: Static<typeof PreviewQuery> }>(
    '/email/preview',
    { schema: { querystring: PreviewQuery } },
    async (request, reply) => {
      const store = currentStore(requireAccess(request, 'email-branding', 'read'))
      const key = request.query.templateKey ?? 'review_request'
      if (!isTemplateKey(key)) throw new errors.NotFound('Template')
      const html = await services.email.preview(store, key)
      // The mail's own inline styles and remote logo, nothing else: no script, no form, no framing.
      return reply.header(
        'content-security-policy',
        'default-src \'none\'; img-src * data:; style-src \'unsafe-inline\'; frame-ancestors \'none\''
      ).type('text/html; charset=utf-8').send(html)
    }
  )

  app.post<{ Body: Static<typeof BrandingBody> }>('/email/branding', { schema: { body: BrandingBody } }, async (request, reply) => {
    const store = currentStore(requireAccess(request, 'email-branding', 'write'))
    const { fromName, primaryColor, footerText } = request.body
    return act(request, reply, 'The branding is saved.', async () => {
      if (primaryColor && !/^#[0-9a-fA-F]{6}$/.test(primaryColor)) throw new errors.InvalidRequest('Give the colour as #rrggbb')
      const current = await services.emailBranding.get(store.id)
      await services.emailBranding.put(store, {
        fromName: fromName?.trim() || null,
        primaryColor: primaryColor || null,
        footerText: footerText?.trim() || null,
        logoUploadId: current.logoUploadId
      })
    })
  })

  app.post<{ Body: Static<typeof SettingsBody> }>('/email/settings', { schema: { body: SettingsBody } }, async (request, reply) => {
    const store = currentStore(requireAccess(request, 'email', 'write'))
    const input = {
      loyaltyRewardMails: Boolean(request.body.loyaltyRewardMails),
      reviewIncentiveMails: Boolean(request.body.reviewIncentiveMails)
    }
    return act(request, reply, 'The reward mail settings are saved.', () => services.emailSettings.put(store, input))
  })

  app.post<{ Body: Static<typeof SuppressionBody> }>(
    '/email/suppressions',
    { schema: { body: SuppressionBody } },
    async (request, reply) => {
      const store = currentStore(requireAccess(request, 'email-suppressions', 'write'))
      const email = request.body.email.trim()
      return act(request, reply, `${email} gets no more mail from this store.`, async () => {
        if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new errors.InvalidRequest('Enter a valid email address')
        await services.emailSuppressions.add(store, { email, reason: 'manual' })
      })
    }
  )

  app.post<{ Body: Static<typeof SuppressionBody> }>(
    '/email/suppressions/remove',
    { schema: { body: SuppressionBody } },
    async (request, reply) => {
      const store = currentStore(requireAccess(request, 'email-suppressions', 'write'))
      return act(
        request,
        reply,
        `${request.body.email} may get mail again.`,
        () => services.emailSuppressions.remove(store, request.body.email)
      )
    }
  )

  app.post<{ Body: Static<typeof DomainBody> }>('/email/domain', { schema: { body: DomainBody } }, async (request, reply) => {
    const store = currentStore(requireAccess(request, 'sending-domain', 'write'))
    return act(
      request,
      reply,
      'Publish the records below, then check them.',
      () => services.sendingDomain.put(store, { domain: request.body.domain })
    )
  })

  app.post('/email/domain/verify', async (request, reply) => {
    const store = currentStore(requireAccess(request, 'sending-domain', 'write'))
    return act(request, reply, 'The records were checked.', () => services.sendingDomain.verify(store))
  })
}
