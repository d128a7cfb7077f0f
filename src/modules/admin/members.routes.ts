import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { PERSON_ROLES, roleRank, type Role } from '../../lib/permissions.js'
import { render, redirect, requireAccess } from './context.js'
import { setFlash } from './flash.js'
import type { Services } from '../../lib/module.js'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const InviteBody = Type.Object({ email: Type.String({ maxLength: 320 }), role: Type.String({ maxLength: 16 }) })
const RoleBody = Type.Object({ role: Type.String({ maxLength: 16 }) })

/** Members: everyone may see the list; owners and admins invite, change roles and remove (as the API does). */
export const membersRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get('/members', async (request, reply) => {
    const ctx = requireAccess(request, 'account', 'read')
    const members = await services.account.members(ctx.org.id, { page: 1, limit: 100 })
    const manage = ctx.org.role === 'owner' || ctx.org.role === 'admin'
    const invitations = manage ? await services.invitations.listPending(ctx.org.id) : []
    const roles = PERSON_ROLES.filter((r) => roleRank(r) <= roleRank(ctx.org.role))
    return render(request, reply, 'members', { title: 'Members', members, invitations, manage, roles })
  })

  app.post<{ Body: Static<typeof InviteBody> }>('/members/invite', { schema: { body: InviteBody } }, async (request, reply) => {
    const ctx = requireAccess(request, 'account', 'write', 'admin')
    const out = await services.invitations.invite(ctx.actor, { email: request.body.email, role: request.body.role as Role }, request.ip)
    if (out.emailed) {
      setFlash(reply, { notice: `Invitation emailed to ${out.invitation.email}.` })
    } else {
      // Embedded default without SMTP_URL: the link is shown once to the inviter, who passes it on. Never logged:
      // the token in it is the authority to join.
      request.log.info({ invitation: out.invitation.id }, 'invitation created; its link was shown to the inviter (no SMTP_URL configured)')
      setFlash(reply, { link: { label: `Send this one-time link to ${out.invitation.email} (valid 7 days):`, value: out.link } })
    }
    return redirect(reply, '/admin/members')
  })

  app.post<{ Params: Static<typeof IdParams> }>(
    '/members/invitations/:id/revoke',
    { schema: { params: IdParams } },
    async (request, reply) => {
      const ctx = requireAccess(request, 'account', 'write', 'admin')
      await services.invitations.revoke(ctx.actor, request.params.id, request.ip)
      setFlash(reply, { notice: 'The invitation is withdrawn.' })
      return redirect(reply, '/admin/members')
    }
  )

  app.post<{ Params: Static<typeof IdParams>, Body: Static<typeof RoleBody> }>('/members/:id/role', {
    schema: { params: IdParams, body: RoleBody }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'account', 'write', 'admin')
    await services.account.changeRole(ctx.actor, request.params.id, request.body.role as Role, request.ip)
    setFlash(reply, { notice: 'The role is changed.' })
    return redirect(reply, '/admin/members')
  })

  app.get<{ Params: Static<typeof IdParams> }>('/members/:id/remove', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'account', 'write', 'admin')
    const person = await services.people.findPerson(request.params.id)
    if (!person || !await services.people.membershipRole(ctx.org.id, person.id)) throw new errors.NotFound('Member')
    return render(request, reply, 'confirm', {
      title: 'Remove member',
      question: `Remove ${person.email} from ${ctx.org.name}?`,
      consequence: 'They lose access at once, including any connections they authorised. Keys belong to the organization and keep working.',
      action: `/admin/members/${person.id}/remove`,
      button: 'Remove member',
      back: '/admin/members'
    })
  })

  app.post<{ Params: Static<typeof IdParams> }>('/members/:id/remove', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'account', 'write', 'admin')
    await services.account.removeMember(ctx.actor, request.params.id, request.ip)
    setFlash(reply, { notice: 'The member is removed.' })
    return redirect(reply, request.params.id === ctx.person.id ? '/admin/login' : '/admin/members')
  })
}
