import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import csrf from '@fastify/csrf-protection'
import type Provider from 'oidc-provider'
import type { InteractionResults } from 'oidc-provider'
import { secureCookies } from '../src/config.js'
import type { OauthClients } from '../src/modules/connectors/index.js'
import { ConsentError, type ConsentService } from './consent.service.js'
import { consentPage, loginPage, refusalPage, scopeInWords } from './interaction.views.js'
import { escapeHtml } from './provider.js'

interface Opts { provider: Provider, clients: OauthClients, consent: ConsentService, audience: string }
type Params = { Params: { uid: string } }
type FormBody = Record<string, string | string[] | undefined>

const UID = { type: 'object', properties: { uid: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } }, required: ['uid'] } as const
const HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer'
}

function one (value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? ''
}

/** Login and consent screens at /oauth/interaction/:uid (oidc-provider hands the browser over to these). */
export default async function interactionRoutes (app: FastifyInstance, { provider, clients, consent, audience }: Opts) {
  await app.register(formbody)
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'eh_oauth_csrf',
    cookieOpts: { path: '/oauth/interaction', httpOnly: true, sameSite: 'lax', signed: true, secure: secureCookies(app.config) }
  })

  function html (reply: FastifyReply, body: string, status = 200) {
    return reply.status(status).headers(HEADERS).type('text/html; charset=utf-8').send(body)
  }

  async function details (request: FastifyRequest<Params>, reply: FastifyReply) {
    try {
      const found = await provider.interactionDetails(request.raw, reply.raw)
      if (found.uid !== request.params.uid) throw new Error('interaction mismatch')
      return found
    } catch {
      html(
        reply,
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in expired</title></head><body><main><h1>This sign-in has expired</h1><p>Go back to the application and connect again.</p></main></body></html>',
        400
      )
      return null
    }
  }

  async function finish (request: FastifyRequest, reply: FastifyReply, result: InteractionResults) {
    const to = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: true })
    return reply.status(303).headers(HEADERS).redirect(to)
  }

  async function showConsent (
    reply: FastifyReply,
    uid: string,
    personId: string,
    d: Awaited<ReturnType<Provider['interactionDetails']>>,
    error?: ConsentError
  ) {
    const requested = requestedApiScopes(d)
    const client = (await clients.registrar(String(d.params.client_id))) ?? { name: 'An application', orgId: null, orgName: null }
    const { organizations, roles } = await consent.options(personId, client)
    const csrf = await reply.generateCsrf()
    // docs/contract/oauth.md#client-ownership: an organization's client is for its members only; say so instead of
    // offering nothing.
    if (client.orgId && organizations.length === 0) {
      return html(reply, refusalPage({ uid, csrf, clientName: client.name, orgName: client.orgName ?? 'another organization' }), 403)
    }
    return html(
      reply,
      consentPage({
        uid,
        csrf,
        clientName: client.name,
        registeredBy: client.orgName ?? 'this service',
        scopes: requested.map((scope) => ({ scope, words: scopeInWords(scope) })),
        offline: String(d.params.scope ?? '').split(' ').includes('offline_access'),
        organizations,
        roles,
        error: error?.message
      }),
      error ? error.status : 200
    )
  }

  function requestedApiScopes (d: Awaited<ReturnType<Provider['interactionDetails']>>): string[] {
    const missing = (d.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>
    return missing[audience] ?? []
  }

  app.get<Params>('/oauth/interaction/:uid', { schema: { params: UID, hide: true } }, async (request, reply) => {
    const d = await details(request, reply)
    if (!d) return reply
    if (d.prompt.name === 'login') {
      const session = await app.sessions.read(request)
      if (session) return finish(request, reply, { login: { accountId: session.personId } })
      const clientName = (await clients.name(String(d.params.client_id))) ?? 'an application'
      return html(reply, loginPage({ uid: d.uid, csrf: await reply.generateCsrf(), clientName }))
    }
    if (requestedApiScopes(d).length === 0) {
      return finish(request, reply, {
        error: 'invalid_scope',
        error_description: 'ask for at least one API scope (read, reviews:read, ...)'
      })
    }
    return showConsent(reply, d.uid, d.session!.accountId, d)
  })

  app.post<Params & { Body: FormBody }>('/oauth/interaction/:uid/login', {
    schema: { params: UID, hide: true },
    preHandler: app.csrfProtection
  }, async (request, reply) => {
    const d = await details(request, reply)
    if (!d) return reply
    const email = one(request.body.email)
    const person = await app.sessions.authenticate(email, one(request.body.password), request.ip)
    if (!person) {
      const clientName = (await clients.name(String(d.params.client_id))) ?? 'an application'
      return html(
        reply,
        loginPage({ uid: d.uid, csrf: await reply.generateCsrf(), clientName, email, error: 'Email or password is wrong.' }),
        401
      )
    }
    await app.sessions.start(reply, person.id)
    return finish(request, reply, { login: { accountId: person.id } })
  })

  app.post<Params & { Body: FormBody }>('/oauth/interaction/:uid/consent', {
    schema: { params: UID, hide: true },
    preHandler: app.csrfProtection
  }, async (request, reply) => {
    const d = await details(request, reply)
    if (!d) return reply
    const personId = d.session?.accountId
    if (!personId || d.prompt.name !== 'consent') return html(reply, `<!doctype html><p>${escapeHtml('Sign in first.')}</p>`, 400)
    const stores = request.body.stores
    try {
      const grantId = await consent.grant({
        personId,
        clientId: String(d.params.client_id),
        oidcScope: (d.prompt.details.missingOIDCScope ?? []) as string[],
        apiScopes: requestedApiScopes(d),
        choice: {
          org: one(request.body.org),
          stores: Array.isArray(stores) ? stores : stores ? [stores] : [],
          role: one(request.body.role)
        },
        ip: request.ip
      })
      return finish(request, reply, { consent: { grantId } })
    } catch (err) {
      if (!(err instanceof ConsentError)) throw err
      return showConsent(reply, d.uid, personId, d, err)
    }
  })

  app.post<Params>(
    '/oauth/interaction/:uid/abort',
    { schema: { params: UID, hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const d = await details(request, reply)
      if (!d) return reply
      return finish(request, reply, { error: 'access_denied', error_description: 'the person did not allow access' })
    }
  )
}
