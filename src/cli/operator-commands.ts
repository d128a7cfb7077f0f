import type { Role } from '../lib/permissions.js'
import { options, type Command } from './command.js'

/** For an operator who lost the first run's output: find what exists, make a key, let an owner back in. */
export const commands: Record<string, Command> = {
  'org list': {
    usage: 'org list',
    async run ({ services, args }) {
      options(args, {}, [])
      return services.operator.listOrganizations()
    }
  },
  'store list': {
    usage: 'store list --org ID',
    async run ({ services, args }) {
      const v = options(args, { org: { type: 'string' } }, ['org'])
      return services.operator.listStores(String(v.org))
    }
  },
  'key create': {
    usage: 'key create --org ID --name NAME --role admin|editor|viewer [--scope SCOPE]... [--expires-at ISO8601]',
    async run ({ services, args }) {
      const v = options(args, { org: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, scope: { type: 'string', multiple: true }, 'expires-at': { type: 'string' } }, ['org', 'name', 'role'])
      return services.operator.createKey({ org: String(v.org), name: String(v.name), role: v.role as Role, scopes: (v.scope as string[] | undefined) ?? [], expiresAt: v['expires-at'] as string | undefined })
    }
  },
  'owner reset-password': {
    usage: 'owner reset-password --email EMAIL',
    async run ({ services, args }) {
      const v = options(args, { email: { type: 'string' } }, ['email'])
      return services.operator.resetOwnerPassword(String(v.email))
    }
  }
}
