import type { FastifyInstance } from 'fastify'
import { backupsRoutes } from './backups.routes.js'
import { defineModule } from '../../lib/module.js'

export { backupsRepository } from './backups.repository.js'
export { backupsService, type BackupsService } from './backups.service.js'

/** Store backups: a background export as gzipped NDJSON, its download, and its restore into an empty store. */
export default async function backups (app: FastifyInstance) {
  await app.register(backupsRoutes, { service: app.services.backups })
}

export const manifest = defineModule({ name: 'backups', routes: [{ plugin: backups, prefix: '/v1' }] })
