import type { FastifyInstance } from 'fastify'
import { crudRoutes } from '../content/index.js'
import type { PlacementsService } from './placements.service.js'
import { schemas } from './placements.schemas.js'

export async function placementsRoutes (app: FastifyInstance, { service }: { service: PlacementsService }) {
  crudRoutes(app, '/placements', schemas, service)
}
