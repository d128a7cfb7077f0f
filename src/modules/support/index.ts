import type { FastifyInstance } from 'fastify'
import { supportRoutes } from './support.routes.js'
import { defineModule } from '../../lib/module.js'

export { supportRepository } from './support.repository.js'
export { supportService, type SupportService } from './support.service.js'

/** Support requests with their context, mailed to SUPPORT_EMAIL (docs/contract/resources.md#support). */
export default async function support (app: FastifyInstance) {
  await app.register(supportRoutes, { service: app.services.support })
}

export const manifest = defineModule({ name: 'support', routes: [{ plugin: support, prefix: '/v1' }] })
