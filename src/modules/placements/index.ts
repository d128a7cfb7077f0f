import type { FastifyInstance } from 'fastify'
import { placementsRoutes } from './placements.routes.js'

export { placementsRepository } from './placements.repository.js'
export { Settings, Widget } from './placements.schemas.js'
export { type PlacementInput, placementsService, type PlacementsService } from './placements.service.js'

/**
 * Which widget renders where on which web page (docs/contract/resources.md#placements); /widget.js reads them per page.
 */
export default async function placements (app: FastifyInstance) {
  await app.register(placementsRoutes, { service: app.services.placements })
}
