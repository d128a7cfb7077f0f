import type { FastifyInstance } from 'fastify'
import { backupsRoutes } from './backups.routes.js'
import { backupsPages } from './admin/backups.routes.js'
import { defineModule } from '../../lib/module.js'
import { backupsRepository } from './backups.repository.js'
import { backupsService, type BackupsService } from './backups.service.js'

export { backupsRepository } from './backups.repository.js'
export { backupsService, type BackupsService } from './backups.service.js'

/** Store backups: a background export as gzipped NDJSON, its download, and its restore into an empty store. */
export default async function backups (app: FastifyInstance) {
  await app.register(backupsRoutes, { service: app.services.backups })
}

declare module '../../lib/module.js' {
  interface Services {
    backupsRepo: ReturnType<typeof backupsRepository>
    backups: BackupsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { backups: true }
}

export const manifest = defineModule({
  name: 'backups',
  resources: {
    backups: { read: 'admin', write: 'admin', area: 'Account', description: 'Exports and backups of the store data.' }
  },
  services: {
    backupsRepo: ({ db }) => backupsRepository(db),
    backups: ({ db, backupsRepo, stores, events, audit, clock, config, storage, log, reviewsChanged }) =>
      backupsService({
        db,
        repo: backupsRepo,
        stores,
        events,
        audit,
        clock,
        dataDir: config.dataDir,
        storage,
        secretKey: config.secretKey,
        log,
        reviewsChanged
      })
  },
  admin: {
    pages: [backupsPages],
    nav: [
      { label: 'Backups', path: '/admin/backups', resource: 'backups' }
    ]
  },
  routes: [{ plugin: backups, prefix: '/v1' }]
})
