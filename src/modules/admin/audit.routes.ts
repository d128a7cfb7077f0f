import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { render, requireAccess } from './context.js'
import type { AdminServices } from './services.js'

const AuditQuery = Type.Object({
  action: Type.Optional(Type.String({ maxLength: 64 })),
  page: Type.Optional(Type.Integer({ minimum: 1 }))
})

/** The actions offered in the filter; the log may hold others, which the free-text filter still finds. */
export const AUDIT_ACTIONS = [
  'api_key.created', 'api_key.first_used', 'api_key.revoked', 'oauth.connection_created', 'oauth.connection_revoked',
  'oauth_client.created', 'member.invited', 'member.invitation_revoked', 'member.joined', 'member.role_changed', 'member.removed'
]

/** The security audit log (decisions.md section 11), owner and admin, filterable by action. */
export const auditRoutes: FastifyPluginAsync<{ services: AdminServices }> = async (app, { services }) => {
  app.get<{ Querystring: Static<typeof AuditQuery> }>('/audit-log', { schema: { querystring: AuditQuery } }, async (request, reply) => {
    const ctx = requireAccess(request, 'account', 'read', 'admin')
    const action = request.query.action?.trim() || undefined
    const log = await services.account.auditLog(ctx.org.id, { action, page: request.query.page ?? 1, limit: 50 })
    return render(request, reply, 'audit', { title: 'Security audit log', log, action: action ?? '', actions: AUDIT_ACTIONS })
  })
}
