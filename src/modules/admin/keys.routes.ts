import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { resourceAreas } from '../../lib/resource-areas.js'
import { formErrorStatus, redirect, render, requireAccess } from './context.js'
import { setFlash } from './flash.js'
import { KEY_MODES, keyInputFromForm, keyRolesFor, type KeyFormBody } from './key-form.js'
import type { Services } from '../../lib/module.js'

const PageQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })) })
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const KeyBody = Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 200 }), { maxProperties: 80 })

/** docs/contract/tenancy-and-roles.md#api-keys, shown beside the form and the list. */
export const KEY_GUIDANCE = [
  'Use one key per integration.',
  'Scope every new key to what the integration needs, and set an expiry.',
  'To replace a key: create the new key, deploy it, then revoke the old one.'
]

/** API keys: list, create (secret shown once), revoke with confirmation. Reached with read/write on api-keys. */
export const keysRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const formData = (role: string) => ({
    title: 'Create an API key', modes: KEY_MODES, areas: resourceAreas(), roles: keyRolesFor(role as never), guidance: KEY_GUIDANCE
  })

  app.get<{ Querystring: Static<typeof PageQuery> }>('/keys', { schema: { querystring: PageQuery } }, async (request, reply) => {
    const ctx = requireAccess(request, 'api-keys', 'read')
    const keys = await services.apiKeys.list(ctx.org.id, { page: request.query.page ?? 1, limit: 50 })
    return render(request, reply, 'keys', { title: 'API keys', keys, guidance: KEY_GUIDANCE })
  })

  app.get('/keys/new', async (request, reply) => {
    const ctx = requireAccess(request, 'api-keys', 'write')
    return render(request, reply, 'key-new', { ...formData(ctx.org.role), values: { mode: 'read', role: 'viewer' } })
  })

  app.post<{ Body: KeyFormBody }>('/keys', { schema: { body: KeyBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'api-keys', 'write')
    try {
      const key = await services.apiKeys.create(ctx.actor, keyInputFromForm(request.body), request.ip)
      setFlash(reply, { secret: { label: key.name, value: key.secret } })
      return redirect(reply, `/admin/keys/${key.id}/created`)
    } catch (err) {
      const status = formErrorStatus(err)
      return render(request, reply, 'key-new', { ...formData(ctx.org.role), values: request.body, error: (err as Error).message }, status)
    }
  })

  app.get<{ Params: Static<typeof IdParams> }>('/keys/:id/created', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'api-keys', 'read')
    const key = await services.apiKeys.get(ctx.org.id, request.params.id)
    return render(request, reply, 'key-created', { title: 'API key created', key })
  })

  app.get<{ Params: Static<typeof IdParams> }>('/keys/:id/revoke', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'api-keys', 'write')
    const key = await services.apiKeys.get(ctx.org.id, request.params.id)
    return render(request, reply, 'confirm', {
      title: 'Revoke API key',
      question: `Revoke the key “${key.name}” (${key.prefix}…)?`,
      consequence: 'Every request made with it is refused at once. There is no grace period and it cannot be undone.',
      action: `/admin/keys/${key.id}/revoke`,
      button: 'Revoke key',
      back: '/admin/keys'
    })
  })

  app.post<{ Params: Static<typeof IdParams> }>('/keys/:id/revoke', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'api-keys', 'write')
    const key = await services.apiKeys.revoke(ctx.actor, request.params.id, request.ip)
    setFlash(reply, { notice: `The key “${key.name}” is revoked.` })
    return redirect(reply, '/admin/keys')
  })
}
