import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { can, formErrorStatus, redirect, render, requireAccess } from './context.js'
import { setFlash } from './flash.js'
import type { Services } from '../../lib/module.js'

const PageQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })) })
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const ClientBody = Type.Object({
  name: Type.String({ maxLength: 200 }),
  redirect_uris: Type.String({ maxLength: 4000 }),
  public: Type.Optional(Type.String({ maxLength: 8 }))
})

/**
 * Connections (OAuth grants, docs/contract/oauth.md#grants): list and revoke; OAuth clients: owners and admins
 * register.
 */
export const connectionsRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  async function page (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    pageNo: number,
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'connectors', 'read')
    const connections = await services.connections.list(ctx.org.id, { page: pageNo, limit: 50 })
    const clients = can(ctx, 'connectors', 'read', 'admin')
      ? await services.connections.listClients(ctx.org.id, { page: 1, limit: 100 })
      : null
    const mayRevoke = (personId: string) => can(ctx, 'connectors', 'write') && services.connections.mayRevoke(ctx.actor, personId)
    return render(request, reply, 'connections', { title: 'Connections', connections, clients, mayRevoke, values: {}, ...extra }, status)
  }

  app.get<{ Querystring: Static<typeof PageQuery> }>('/connections', { schema: { querystring: PageQuery } }, async (request, reply) => {
    return page(request, reply, request.query.page ?? 1)
  })

  app.get<{ Params: Static<typeof IdParams> }>('/connections/:id/revoke', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'connectors', 'write')
    const grant = await services.grants.find(request.params.id)
    if (!grant || grant.orgId !== ctx.org.id || grant.revokedAt != null) throw new errors.NotFound('Connection')
    if (!services.connections.mayRevoke(ctx.actor, grant.personId)) throw new errors.RoleForbidden('another person\'s connection')
    const client = (await services.clients.name(grant.clientId)) ?? grant.clientId
    return render(request, reply, 'confirm', {
      title: 'Revoke connection',
      question: `Revoke the connection of “${client}”?`,
      consequence: 'Its access and refresh tokens stop working at once; the application has to be connected again.',
      action: `/admin/connections/${grant.id}/revoke`,
      button: 'Revoke connection',
      back: '/admin/connections'
    })
  })

  app.post<{ Params: Static<typeof IdParams> }>('/connections/:id/revoke', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'connectors', 'write')
    await services.connections.revoke(ctx.actor, request.params.id, request.ip)
    setFlash(reply, { notice: 'The connection is revoked.' })
    return redirect(reply, '/admin/connections')
  })

  app.post<{ Body: Static<typeof ClientBody> }>('/connections/clients', { schema: { body: ClientBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'connectors', 'write', 'admin')
    const input = {
      name: request.body.name.trim(),
      redirectUris: request.body.redirect_uris.split(/\s+/).filter(Boolean),
      public: request.body.public === 'on'
    }
    try {
      if (!input.name) throw new errors.InvalidRequest('Give the client a name')
      const client = await services.connections.createClient(ctx.actor, input, request.ip)
      setFlash(
        reply,
        client.clientSecret
          ? {
              once: {
                title: `OAuth client “${client.name}” registered`,
                label: `Client ID: ${client.clientId}. Client secret:`,
                value: client.clientSecret
              }
            }
          : { notice: `Public OAuth client “${client.name}” registered. Client ID: ${client.clientId} (no secret: it must use PKCE).` }
      )
      return redirect(reply, '/admin/connections')
    } catch (err) {
      const status = formErrorStatus(err)
      return page(request, reply, 1, { values: request.body, error: (err as Error).message }, status)
    }
  })
}
