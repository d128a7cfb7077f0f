import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { MAX_ORIGIN_LENGTH, MAX_ORIGINS } from '../../lib/origins.js'
import { can, formErrorStatus, render, redirect, requireAccess } from './context.js'
import { setFlash } from './flash.js'
import type { Services } from '../../lib/module.js'

const SelectStore = Type.Object({ store: Type.String({ maxLength: 64 }) })
const SelectOrg = Type.Object({ org: Type.String({ maxLength: 64 }) })
const StoreParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const OriginsBody = Type.Object({ origins: Type.String({ maxLength: (MAX_ORIGIN_LENGTH + 2) * MAX_ORIGINS }) })

/** The textarea holds one origin a line; blank lines (and stray spaces or commas) are not origins. */
function originLines (text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean)
}

/**
 * The store switcher: the organization's store environments and their subscription state; and each store's
 * allowed origins (every member sees them, owners and admins change them, as PUT /v1/account/stores/:id/origins).
 */
export const storesRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get('/stores', async (request, reply) => render(request, reply, 'stores', { title: 'Stores' }))

  type Req = Parameters<typeof render>[0]
  type Reply = Parameters<typeof render>[1]
  async function originsPage (request: Req, reply: Reply, storeId: string, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'account', 'read')
    const { origins } = await services.account.storeOrigins(ctx.actor, storeId)
    const store = ctx.stores.find((s) => s.id === storeId)!
    const canEdit = can(ctx, 'account', 'write', 'admin')
    return render(request, reply, 'store-origins', {
      title: 'Allowed origins',
      store,
      origins,
      canEdit,
      text: origins.join('\n'),
      ...extra
    }, status)
  }

  app.get<{ Params: Static<typeof StoreParams> }>('/stores/:id/origins', { schema: { params: StoreParams } }, async (request, reply) => {
    return originsPage(request, reply, request.params.id)
  })

  app.post<{ Params: Static<typeof StoreParams>, Body: Static<typeof OriginsBody> }>('/stores/:id/origins', {
    schema: { params: StoreParams, body: OriginsBody }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'account', 'write', 'admin')
    const store = ctx.stores.find((s) => s.id === request.params.id)
    if (!store) throw new errors.StoreEnvNotFound()
    try {
      const { origins } = await services.account.setStoreOrigins(ctx.actor, store.id, originLines(request.body.origins), request.ip)
      setFlash(
        reply,
        origins.length
          ? { notice: `Allowed origins of ${store.name} saved (${origins.length}). They apply to the next storefront request.` }
          : { notice: `${store.name} allows no origin now: its storefront is closed to every site.` }
      )
      return redirect(reply, `/admin/stores/${store.id}/origins`)
    } catch (err) {
      const status = formErrorStatus(err)
      return originsPage(request, reply, store.id, { text: request.body.origins, error: (err as Error).message }, status)
    }
  })

  app.post<{ Body: Static<typeof SelectStore> }>('/stores/select', { schema: { body: SelectStore } }, async (request, reply) => {
    const ctx = request.admin!
    const id = request.body.store
    // The current organization's stores, a partner client's (docs/contract/tenancy-and-roles.md#partner-access), or,
    // from a client's, one's own.
    const own = ctx.partnerOf ? await app.stores.listForOrg(ctx.partnerOf.id) : []
    const store = ctx.stores.find((s) => s.id === id) ?? ctx.clientStores.find((c) => c.store.id === id)?.store ??
      own.find((s) => s.id === id)
    if (!store) throw new errors.NotFound('Store environment')
    await app.sessions.update(request, { storeEnvId: store.id })
    setFlash(reply, { notice: `Now working in ${store.name}.` })
    return redirect(reply, '/admin/stores')
  })

  app.post<{ Body: Static<typeof SelectOrg> }>('/orgs/select', { schema: { body: SelectOrg } }, async (request, reply) => {
    const org = request.admin!.orgs.find((o) => o.id === request.body.org)
    if (!org) throw new errors.NotFound('Organization')
    await app.sessions.update(request, { orgId: org.id, storeEnvId: null })
    setFlash(reply, { notice: `Now working in ${org.name}.` })
    return redirect(reply, '/admin/stores')
  })
}
