import { createReadStream } from 'node:fs'
import type { FastifyPluginAsync } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { actorOf } from '../../../types.js'
import { currentStore, formErrorStatus, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'
import type { Services } from '../../../lib/module.js'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const RestoreBody = Type.Object({ targetStoreEnvId: Type.String({ maxLength: 64 }) })

/** Backups of the current store: start one, download it, restore it into an empty store of the organization. */
export const backupsPages: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  async function page (
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    extra: Record<string, unknown> = {},
    status = 200
  ) {
    const ctx = requireAccess(request, 'backups', 'read')
    const store = currentStore(ctx)
    const backups = await services.backups.list(store.id, { page: 1, limit: 50 })
    const targets = ctx.stores.filter((s) => s.id !== store.id)
    return render(request, reply, 'backups/admin/views/backups', { title: 'Backups', store, backups, targets, ...extra }, status)
  }

  app.get('/backups', async (request, reply) => page(request, reply))

  app.post('/backups', async (request, reply) => {
    const ctx = requireAccess(request, 'backups', 'write')
    await services.backups.create(currentStore(ctx), actorOf(ctx.actor))
    setFlash(reply, { notice: 'The backup is queued; it is built in the background. Reload this page to see it completed.' })
    return redirect(reply, '/admin/backups')
  })

  app.get<{ Params: Static<typeof IdParams> }>('/backups/:id/download', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'backups', 'read')
    const file = await services.backups.download(currentStore(ctx).id, request.params.id)
    return reply.type('application/gzip')
      .header('content-disposition', `attachment; filename="${file.filename}"`)
      .header('x-checksum-sha256', file.checksum)
      .send(createReadStream(file.path))
  })

  app.post<{ Params: Static<typeof IdParams>, Body: Static<typeof RestoreBody> }>('/backups/:id/restore', {
    schema: { params: IdParams, body: RestoreBody }
  }, async (request, reply) => {
    const ctx = requireAccess(request, 'backups', 'write')
    try {
      const restored = await services.backups.restore(currentStore(ctx), request.params.id, request.body.targetStoreEnvId, {
        id: actorOf(ctx.actor),
        ip: request.ip,
        storeIds: null
      })
      const rows = Object.values(restored.counts).reduce((a, b) => a + b, 0)
      setFlash(reply, { notice: `Restored ${rows} rows into ${restored.targetStoreEnvId}.` })
      return redirect(reply, '/admin/backups')
    } catch (err) {
      return page(request, reply, { error: (err as Error).message }, formErrorStatus(err))
    }
  })
}
