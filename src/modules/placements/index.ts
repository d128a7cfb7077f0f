import type { FastifyInstance } from 'fastify'
import { placementsRoutes } from './placements.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { PlacementsService } from './placements.service.js'
import { defineModule } from '../../lib/module.js'
import { placementsRepository } from './placements.repository.js'
import { placementsService } from './placements.service.js'

export { placementsRepository } from './placements.repository.js'
export { Settings, Widget } from './placements.schemas.js'
export { type PlacementInput, placementsService, type PlacementsService } from './placements.service.js'

/**
 * Which widget renders where on which web page (docs/contract/resources.md#placements); /widget.js reads them per page.
 */
export default async function placements (app: FastifyInstance) {
  await app.register(placementsRoutes, { service: app.services.placements })
}

/** A deleted web page takes its placements with it, in the deletion's transaction. */
export function placementsReactions (bus: DomainBus, { placements }: { placements: PlacementsService }) {
  bus.on('web-page.deleted', (trx, { store, webPageId }) => placements.leavePage(trx, store, webPageId))
}

declare module '../../lib/module.js' {
  interface Services {
    placementsRepo: ReturnType<typeof placementsRepository>
    placements: PlacementsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { placements: true }
}

export const manifest = defineModule({
  name: 'placements',
  resources: {
    placements: { read: 'viewer', write: 'editor', area: 'Catalog & reviews', description: 'Where widgets appear on the storefront.' }
  },
  services: {
    placementsRepo: ({ db }) => placementsRepository(db),
    placements: ({ db, placementsRepo, events, clock, webPages, galleriesRepo }) => placementsService({
      db,
      repo: placementsRepo,
      events,
      clock,
      pageExists: webPages.exists,
      pageByUrl: webPages.byUrl,
      galleryExists: async (storeId, id, trx) => Boolean(await galleriesRepo.find(storeId, id, trx))
    })
  },
  reactions: placementsReactions,
  routes: [{ plugin: placements, prefix: '/v1' }]
})
