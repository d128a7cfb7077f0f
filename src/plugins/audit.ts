import fp from 'fastify-plugin'
import { auditRepository, type AuditRepository } from '../modules/account/audit.repository.js'
import type { Credential } from './auth.js'

declare module 'fastify' {
  interface FastifyInstance { audit: AuditRepository }
}

export function actorOf (credential: Pick<Credential, 'type' | 'id'>): string {
  return `${credential.type}:${credential.id}`
}

/** The security audit log (decisions.md section 11) is written from several modules, so it is shared here. */
export default fp(async (app) => {
  app.decorate('audit', auditRepository(app.db, app.clock))
}, { name: 'audit', dependencies: ['db'] })
