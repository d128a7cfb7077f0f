import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { render, redirect } from './context.js'
import { setFlash } from './flash.js'
import type { AdminServices } from './services.js'

const SelectStore = Type.Object({ store: Type.String({ maxLength: 64 }) })
const SelectOrg = Type.Object({ org: Type.String({ maxLength: 64 }) })

/** The store switcher: the organization's store environments and their subscription state. */
export const storesRoutes: FastifyPluginAsync<{ services: AdminServices }> = async (app) => {
  app.get('/stores', async (request, reply) => render(request, reply, 'stores', { title: 'Stores' }))

  app.post<{ Body: Static<typeof SelectStore> }>('/stores/select', { schema: { body: SelectStore } }, async (request, reply) => {
    const store = request.admin!.stores.find((s) => s.id === request.body.store)
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
