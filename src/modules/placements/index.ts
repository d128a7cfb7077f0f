import type { FastifyInstance } from 'fastify'
import { placementsRoutes } from './placements.routes.js'

export { placementsRepository } from './placements.repository.js'
export { Settings, Widget } from './placements.schemas.js'
export { type PlacementInput, placementsService, type PlacementsService } from './placements.service.js'

/** Which widget renders where on which web page (decisions.md section 15); /widget.js reads them per page. */
export default async function placements (app: FastifyInstance) {
  await app.register(placementsRoutes, { service: app.services.placements })
}
