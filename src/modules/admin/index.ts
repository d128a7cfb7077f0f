import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import csrf from '@fastify/csrf-protection'
import view from '@fastify/view'
import { Eta } from 'eta'
import { apiCode } from '../../errors.js'
import { secureCookies } from '../../config.js'
import { loadContext, refusePartnerManagement, render, redirect } from './context.js'
import { setFlash } from './flash.js'
import { publicRoutes } from './public.routes.js'
import { storesRoutes } from './stores.routes.js'
import { keysRoutes } from './keys.routes.js'
import { membersRoutes } from './members.routes.js'
import { auditRoutes } from './audit.routes.js'
import { connectionsRoutes } from './connections.routes.js'
import { webhooksRoutes } from './webhooks.routes.js'
import { accountSettingsRoutes } from './account-settings.routes.js'
import { partnersRoutes } from './partners.routes.js'
import { defineModule } from '../../lib/module.js'
import { invitationsRepository } from './invitations.repository.js'
import { invitationsService, type InvitationsService } from './invitations.service.js'

export { type AdminContext, can, currentStore, formErrorStatus, redirect, render, requireAccess } from './context.js'
export { setFlash } from './flash.js'
export { apiBodyCheck } from './api-schema.js'
export { distributionChart, trendChart } from './chart.js'
export { invitationsRepository } from './invitations.repository.js'
export { invitationsService } from './invitations.service.js'

const here = dirname(fileURLToPath(import.meta.url))

/** No inline script or style, no framing, no referrer (pages carry one-time secrets), nothing cached. */
const SECURITY_HEADERS = {
  'content-security-policy':
    'default-src \'none\'; script-src \'self\'; style-src \'self\'; img-src \'self\' data:; form-action \'self\'; frame-ancestors \'none\'; base-uri \'none\'',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store'
}

/**
 * The admin web application (docs/contract/api-conventions.md#roots): server-rendered pages under /admin for people
 * signed in with email + password. It calls the same services as the API, acting as the person with their membership
 * role.
 */
export default async function admin (app: FastifyInstance) {
  const secure = secureCookies(app.config)
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) await app.register(formbody)
  if (!app.hasReplyDecorator('generateCsrf')) {
    await app.register(csrf, {
      cookieKey: 'eh_csrf',
      cookieOpts: { path: '/admin', httpOnly: true, sameSite: 'strict', secure, signed: true }
    })
  }
  // From src/modules: each module keeps its pages' views in its own admin/views.
  await app.register(view, { engine: { eta: new Eta() }, root: join(here, '..'), layout: 'admin/views/layout.eta' })
  app.decorateRequest('admin', null)

  const services = app.services
  const { people, partners, audit } = services

  app.addHook('onRoute', (route) => { route.config = { ...route.config, auth: 'none' } })
  app.addHook('onRequest', async (_request, reply) => { reply.headers(SECURITY_HEADERS) })
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method === 'POST') app.csrfProtection(request, reply, done)
    else done()
  })
  app.setErrorHandler((err: FastifyError, request, reply) => renderError(err, request, reply))
  app.setNotFoundHandler((request, reply) =>
    render(request, reply, 'error', { title: 'Not found', message: 'There is no such page.' }, 404)
  )

  const css = readFileSync(join(here, 'assets', 'admin.css'))
  const js = readFileSync(join(here, 'assets', 'admin.js'))
  app.get(
    '/assets/admin.css',
    async (_request, reply) => reply.header('cache-control', 'public, max-age=300').type('text/css; charset=utf-8').send(css)
  )
  app.get(
    '/assets/admin.js',
    async (_request, reply) => reply.header('cache-control', 'public, max-age=300').type('text/javascript; charset=utf-8').send(js)
  )

  await app.register(publicRoutes, { services })
  await app.register(async (signedIn) => {
    signedIn.addHook('preHandler', async (request, reply) => {
      const ctx = await loadContext(app, people, request, partners)
      if (ctx === 'no_membership') {
        await app.sessions.end(request, reply)
        setFlash(reply, { error: 'You are no longer a member of any organization.' })
        return redirect(reply, '/admin/login')
      }
      if (!ctx) {
        const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : ''
        return redirect(reply, `/admin/login${next}`)
      }
      request.admin = ctx
      refusePartnerManagement(request)
    })
    // A partner's every page and action in a client's store lands in the client's audit log, as on the API.
    signedIn.addHook('onSend', async (request, reply) => {
      const ctx = request.admin
      if (!ctx?.partnerOf || !ctx.store) return
      await audit.record({
        orgId: ctx.org.id,
        action: 'partner.request',
        actor: `person:${ctx.person.id}`,
        subject: `store:${ctx.store.id}`,
        ip: request.ip,
        details: {
          partnerOrgId: ctx.partnerOf.id,
          personId: ctx.person.id,
          method: request.method,
          route: request.routeOptions.url ?? null,
          status: reply.statusCode
        }
      })
    })
    signedIn.get('/', async (_request, reply) => redirect(reply, '/admin/stores'))
    await signedIn.register(storesRoutes, { services })
    await signedIn.register(keysRoutes, { services })
    await signedIn.register(membersRoutes, { services })
    await signedIn.register(auditRoutes, { services })
    await signedIn.register(connectionsRoutes, { services })
    await signedIn.register(webhooksRoutes, { services })
    await signedIn.register(accountSettingsRoutes, { services })
    await signedIn.register(partnersRoutes, { services })
    // Every module's own pages (its manifest's `admin`), in the order of src/modules/index.ts.
    for (const module of app.modules) {
      for (const pages of module.admin?.pages ?? []) await signedIn.register(pages, { services })
    }
  })
}

/** Errors become pages: the message of our own codes is written for people; anything else stays generic. */
function renderError (err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (err.code === 'FST_CSRF_INVALID_TOKEN' || err.code === 'FST_CSRF_MISSING_SECRET') {
    return render(request, reply, 'error', {
      title: 'Form expired',
      message: 'This form expired or was not sent from this site. Go back, reload the page and try again.'
    }, 403)
  }
  if (err.validation) {
    return render(request, reply, 'error', { title: 'Check the form', message: 'Some fields are missing or too long.' }, 400)
  }
  const status = err.statusCode ?? 500
  if (apiCode(err.code) && status < 500) {
    const title = status === 403 ? 'Not allowed' : status === 404 ? 'Not found' : status === 429 ? 'Too many requests' : 'Could not do that'
    const message = err.code === 'ROLE_FORBIDDEN' ? 'Your role does not give access to this page or action.' : err.message
    return render(request, reply, 'error', { title, message }, status)
  }
  // The framework's own refusals (a body too large or not a form, say) are the browser's to mend, not ours to log.
  if (status < 500) {
    request.log.info({ err: { code: err.code, message: err.message } }, 'admin request refused')
    return render(request, reply, 'error', {
      title: 'Could not do that',
      message: 'The form could not be read. Go back, reload the page and try again.'
    }, status)
  }
  request.log.error({ err }, 'admin page failed')
  return render(
    request,
    reply,
    'error',
    { title: 'Something went wrong', message: 'The page could not be shown. Try again in a moment.' },
    500
  )
}

declare module '../../lib/module.js' {
  interface Services {
    invitationsRepo: ReturnType<typeof invitationsRepository>
    invitations: InvitationsService
  }
}

export const manifest = defineModule({
  name: 'admin',
  services: {
    invitationsRepo: ({ db }) => invitationsRepository(db),
    invitations: ({ db, invitationsRepo, people, audit, clock, hash, config, mailSender, freshness }) =>
      invitationsService({
        db,
        repo: invitationsRepo,
        people,
        audit,
        clock,
        hash,
        publicUrl: config.publicUrl,
        send: mailSender.direct('invitation'),
        fresh: freshness
      })
  },
  routes: [{ plugin: admin, prefix: '/admin' }]
})
