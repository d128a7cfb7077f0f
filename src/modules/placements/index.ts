import type { FastifyInstance } from 'fastify'
import { placementsRoutes } from './placements.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { PlacementsService } from './placements.service.js'
import { defineModule } from '../../lib/module.js'

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

export const manifest = defineModule({ name: 'placements', routes: [{ plugin: placements, prefix: '/v1' }] })
