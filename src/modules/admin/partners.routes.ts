import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import type { GrantableRole } from '../partners/index.js'
import { can, formErrorStatus, redirect, render, requireAccess } from './context.js'
import { setFlash } from './flash.js'
import type { Services } from '../../lib/module.js'

const OrgParams = Type.Object({ orgId: Type.String({ maxLength: 64 }) })
const GrantBody = Type.Object({ partnerOrgId: Type.String({ maxLength: 64 }), role: Type.String({ maxLength: 16 }) })
const GRANTABLE: readonly GrantableRole[] = ['admin', 'editor', 'viewer']

/**
 * Partner access (docs/contract/tenancy-and-roles.md#partner-access): the owner grants an agency organization a role up
 * to admin and revokes it (admins see the grants); everyone sees the clients their own organization works for.
 */
export const partnersRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  async function page (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'partner', 'read')
    const grants = can(ctx, 'orgs', 'read') ? (await services.partners.list(ctx.org.id)).data : null
    const clients = ctx.partnerOf ? [] : (await services.partners.clients(ctx.org.id)).data
    return render(request, reply, 'partners', {
      title: 'Partners',
      grants,
      clients,
      canGrant: can(ctx, 'orgs', 'write'),
      roles: GRANTABLE,
      values: { role: 'editor' },
      ...extra
    }, status)
  }

  app.get('/partners', async (request, reply) => page(request, reply))

  app.post<{ Body: Static<typeof GrantBody> }>('/partners', { schema: { body: GrantBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'orgs', 'write')
    try {
      const role = request.body.role as GrantableRole
      if (!GRANTABLE.includes(role)) throw new errors.InvalidRequest('A partner gets admin, editor or viewer, never owner')
      const { grant, created } = await services.partners.grant(
        ctx.actor,
        { partnerOrgId: request.body.partnerOrgId.trim(), role },
        request.ip
      )
      setFlash(reply, {
        notice: created
          ? `${grant.partnerOrgName} now has partner access as ${grant.role}.`
          : `${grant.partnerOrgName} now acts as ${grant.role}.`
      })
      return redirect(reply, '/admin/partners')
    } catch (err) {
      return page(request, reply, { values: request.body, error: (err as Error).message }, formErrorStatus(err))
    }
  })

  app.get<{ Params: Static<typeof OrgParams> }>('/partners/:orgId/revoke', { schema: { params: OrgParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'orgs', 'write')
    const grant = (await services.partners.list(ctx.org.id)).data.find((g) => g.partnerOrgId === request.params.orgId)
    if (!grant) throw new errors.NotFound('Partner grant')
    return render(request, reply, 'confirm', {
      title: 'Revoke partner access',
      question: `Revoke the partner access of ${grant.partnerOrgName}?`,
      consequence: 'Its people lose access to every store of this organization from their next request, in the API and here.',
      action: `/admin/partners/${grant.partnerOrgId}/revoke`,
      button: 'Revoke access',
      back: '/admin/partners'
    })
  })

  app.post<{ Params: Static<typeof OrgParams> }>('/partners/:orgId/revoke', { schema: { params: OrgParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'orgs', 'write')
    await services.partners.revoke(ctx.actor, request.params.orgId, request.ip)
    setFlash(reply, { notice: 'Partner access revoked.' })
    return redirect(reply, '/admin/partners')
  })
}
