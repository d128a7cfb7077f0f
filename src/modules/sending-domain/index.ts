import type { FastifyInstance } from 'fastify'
import { sendingDomainRoutes } from './sending-domain.routes.js'
import { defineModule } from '../../lib/module.js'
import { Resolver } from 'node:dns/promises'
import type { DnsResolver } from './dns-records.js'
import { sendingDomainRepository } from './sending-domain.repository.js'
import { sendingDomainService, type SendingDomainService } from './sending-domain.service.js'

export type { DnsResolver } from './dns-records.js'
export { sendingDomainRepository } from './sending-domain.repository.js'
export { sendingDomainService, type SendingDomainService } from './sending-domain.service.js'

/** A store's own DKIM-signed sending domain (docs/contract/resources.md#sending-domain). */
export default async function sendingDomain (app: FastifyInstance) {
  await app.register(sendingDomainRoutes, { service: app.services.sendingDomain })
}

declare module '../../lib/module.js' {
  interface Services {
    sendingDomainRepo: ReturnType<typeof sendingDomainRepository>
    sendingDomain: SendingDomainService
  }
  interface Overrides {
    /** DNS for sending-domain checks; the system's resolvers unless given (tests point one at a local server). */
    resolver?: DnsResolver
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { 'sending-domain': true }
}

export const manifest = defineModule({
  name: 'sending-domain',
  resources: {
    'sending-domain': { read: 'viewer', write: 'admin', area: 'Email', description: 'The domain email is sent from and its DNS checks.' }
  },
  services: {
    sendingDomainRepo: ({ db }) => sendingDomainRepository(db),
    sendingDomain: ({ db, sendingDomainRepo, events, overrides, clock, config }) => sendingDomainService({
      db,
      repo: sendingDomainRepo,
      events,
      resolver: overrides.resolver ?? new Resolver({ timeout: 3000, tries: 2 }),
      clock,
      secretKey: config.secretKey,
      publicUrl: config.publicUrl,
      mailFrom: config.mailFrom
    })
  },
  routes: [{ plugin: sendingDomain, prefix: '/v1' }]
})
