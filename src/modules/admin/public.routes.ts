import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { render, redirect } from './context.js'
import { setFlash } from './flash.js'
import { MIN_PASSWORD_LENGTH } from './invitations.service.js'
import type { Services } from '../../lib/module.js'

const LoginBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  next: Type.Optional(Type.String({ maxLength: 2000 }))
})
const NextQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) })
const TokenParams = Type.Object({ token: Type.String({ maxLength: 64 }) })
const AcceptBody = Type.Object({ password: Type.String({ maxLength: 1024 }), name: Type.Optional(Type.String({ maxLength: 200 })) })

/**
 * Only our own pages: the admin application, or the OAuth consent screen that sent the person here. Printable ASCII
 * only, as a URL the browser sent is (its own escapes kept): anything else cannot go into a Location header.
 */
export function safeNext (next: string | undefined): string {
  return next && /^\/(admin|oauth)(\/|\?|$)/.test(next) && /^[\x21-\x7e]+$/.test(next) && !/\\|\/\//.test(next) ? next : '/admin'
}

/** Sign-in, sign-out and accepting an invitation: the pages a person reaches without a session. */
export const publicRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Querystring: Static<typeof NextQuery> }>('/login', { schema: { querystring: NextQuery } }, async (request, reply) => {
    if (await app.sessions.read(request)) return redirect(reply, safeNext(request.query.next))
    return render(request, reply, 'login', { title: 'Sign in', next: safeNext(request.query.next), email: '' })
  })

  app.post<{ Body: Static<typeof LoginBody> }>('/login', { schema: { body: LoginBody } }, async (request, reply) => {
    const { email, password } = request.body
    const next = safeNext(request.body.next)
    let person
    try {
      person = await app.sessions.authenticate(email, password, request.ip)
    } catch (err) {
      if (!(err instanceof errors.RateLimited)) throw err
      const minutes = Math.max(1, Math.ceil(Number(/(\d+)/.exec(err.message)?.[1] ?? 60) / 60))
      reply.header('retry-after', minutes * 60)
      return render(request, reply, 'login', {
        title: 'Sign in',
        next,
        email,
        error: `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`
      }, 429)
    }
    if (!person) {
      return render(request, reply, 'login', { title: 'Sign in', next, email, error: 'The email or password is not right.' }, 401)
    }
    const orgs = await services.people.organizationsOf(person.id)
    await app.sessions.start(reply, person.id, { orgId: orgs[0]?.id ?? null })
    return redirect(reply, next)
  })

  app.post('/logout', async (request, reply) => {
    await app.sessions.end(request, reply)
    setFlash(reply, { notice: 'You are signed out.' })
    return redirect(reply, '/admin/login')
  })

  app.get<{ Params: Static<typeof TokenParams> }>('/invitations/:token', { schema: { params: TokenParams } }, async (request, reply) => {
    const invitation = await services.invitations.describe(request.params.token)
    return render(request, reply, 'invitation', {
      title: 'Accept invitation',
      invitation,
      token: request.params.token,
      minLength: MIN_PASSWORD_LENGTH
    })
  })

  app.post<{ Params: Static<typeof TokenParams>, Body: Static<typeof AcceptBody> }>('/invitations/:token', {
    schema: { params: TokenParams, body: AcceptBody }
  }, async (request, reply) => {
    const { token } = request.params
    try {
      const joined = await services.invitations.accept(
        token,
        request.body,
        request.ip,
        (email, password) => app.sessions.authenticate(email, password, request.ip)
      )
      await app.sessions.start(reply, joined.personId, { orgId: joined.orgId })
      setFlash(reply, { notice: 'Welcome: you have joined the organization.' })
      return redirect(reply, '/admin/stores')
    } catch (err) {
      if (!(err instanceof errors.InvalidRequest)) throw err
      const invitation = await services.invitations.describe(token)
      return render(request, reply, 'invitation', {
        title: 'Accept invitation',
        invitation,
        token,
        minLength: MIN_PASSWORD_LENGTH,
        error: err.message
      }, 400)
    }
  })
}
