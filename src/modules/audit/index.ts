export { type AuditEntry, auditRepository, type AuditRepository } from './audit.repository.js'
