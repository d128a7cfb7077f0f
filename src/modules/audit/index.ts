import { auditRepository, type AuditRepository } from './audit.repository.js'
import { defineModule } from '../../lib/module.js'

export { type AuditEntry, auditRepository, type AuditRepository } from './audit.repository.js'

declare module '../../lib/module.js' {
  interface Services {
    audit: AuditRepository
  }
}

export const manifest = defineModule({
  name: 'audit',
  services: { audit: ({ db, clock }) => auditRepository(db, clock) }
})
