import type { FastifyInstance } from 'fastify'
import { peopleRepository } from '../../account/people.repository.js'
import { triggersRepository } from './triggers.repository.js'
import { triggersService } from './triggers.service.js'
import { triggersRoutes } from './triggers.routes.js'

/** The connector layer's read side: `/connectors/me`, the trigger catalogue and polling (decisions.md section 9). */
export default async function connectorTriggers (app: FastifyInstance) {
  const service = triggersService({ repo: triggersRepository(app.db), people: peopleRepository(app.db) })
  await app.register(triggersRoutes, { service })
}
