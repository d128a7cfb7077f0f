import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { render, requireAccess } from './context.js'
import type { Services } from '../../lib/module.js'

const AuditQuery = Type.Object({
  action: Type.Optional(Type.String({ maxLength: 64 })),
  page: Type.Optional(Type.Integer({ minimum: 1 }))
})

/** Readable names of the actions the services record; an action without one is shown as recorded. */
export const AUDIT_ACTION_LABELS: Readonly<Record<string, string>> = {
  'api_key.created': 'API key created',
  'api_key.first_used': 'API key first used',
  'api_key.revoked': 'API key revoked',
  'oauth.connection_created': 'Connection created',
  'oauth.connection_revoked': 'Connection revoked',
  'oauth_client.created': 'OAuth client created',
  'member.invited': 'Member invited',
  'member.invitation_revoked': 'Invitation revoked',
  'member.joined': 'Member joined',
  'member.role_changed': 'Member role changed',
  'member.removed': 'Member removed',
  'person.password_reset': 'Password reset',
  'store.origins_updated': 'Store origins updated'
}

/** What kind of thing a `kind:id` reference names, shown when its name cannot be resolved. */
const REF_KINDS: Readonly<Record<string, string>> = {
  api_key: 'API key', person: 'Person', store: 'Store', invitation: 'Invitation', oauth: 'Connection', oauth_client: 'OAuth client'
}

export function refLabel (ref: string, names: Map<string, string>): { name: string, ref: string | null } {
  const name = names.get(ref)
  if (name) return { name, ref }
  const kind = REF_KINDS[ref.slice(0, ref.indexOf(':'))]
  if (kind) return { name: kind, ref }
  return { name: ref, ref: null }
}

/**
 * The security audit log (docs/contract/tenancy-and-roles.md#audit-log), owner and admin. Actors and subjects are shown
 * by name where the organization still has them (one query per kind), the action filter offers the actions the log
 * holds; an action it does not hold is ignored rather than searched for, so a hand-edited URL shows everything, never
 * an error.
 */
export const auditRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Querystring: Static<typeof AuditQuery> }>('/audit-log', { schema: { querystring: AuditQuery } }, async (request, reply) => {
    const ctx = requireAccess(request, 'account', 'read', 'admin')
    const actions = await services.account.auditActions(ctx.org.id)
    const asked = request.query.action?.trim() || ''
    const action = actions.includes(asked) ? asked : ''
    const log = await services.account.auditLog(ctx.org.id, { action: action || undefined, page: request.query.page ?? 1, limit: 50 })
    const names = await services.account.auditNames(ctx.org.id, log.data.flatMap((e) => e.subject ? [e.actor, e.subject] : [e.actor]))
    const entries = log.data.map((e) => ({
      ...e,
      actionLabel: AUDIT_ACTION_LABELS[e.action] ?? e.action,
      actor: refLabel(e.actor, names),
      subject: e.subject ? refLabel(e.subject, names) : null
    }))
    return render(request, reply, 'audit', {
      title: 'Security audit log',
      log: { ...log, data: entries },
      action,
      ignored: asked && !action ? asked : '',
      actions: actions.map((value) => ({ value, label: AUDIT_ACTION_LABELS[value] ?? value }))
    })
  })
}
