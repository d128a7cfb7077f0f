import type { FastifyInstance } from 'fastify'
import { sendingDomainRoutes } from './sending-domain.routes.js'
import { defineModule } from '../../lib/module.js'

export type { DnsResolver } from './dns-records.js'
export { sendingDomainRepository } from './sending-domain.repository.js'
export { sendingDomainService, type SendingDomainService } from './sending-domain.service.js'

/** A store's own DKIM-signed sending domain (docs/contract/resources.md#sending-domain). */
export default async function sendingDomain (app: FastifyInstance) {
  await app.register(sendingDomainRoutes, { service: app.services.sendingDomain })
}

export const manifest = defineModule({ name: 'sending-domain', routes: [{ plugin: sendingDomain, prefix: '/v1' }] })
