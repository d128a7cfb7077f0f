import type { Role } from '../lib/permissions.js'
import { options, UsageError, type Command } from './command.js'
import { FEATURE_KEYS } from '../features.js'

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
      const v = options(args, {
        org: { type: 'string' },
        name: { type: 'string' },
        role: { type: 'string' },
        scope: { type: 'string', multiple: true },
        'expires-at': { type: 'string' }
      }, ['org', 'name', 'role'])
      return services.operator.createKey({
        org: String(v.org),
        name: String(v.name),
        role: v.role as Role,
        scopes: (v.scope as string[] | undefined) ?? [],
        expiresAt: v['expires-at'] as string | undefined
      })
    }
  },
  'owner reset-password': {
    usage: 'owner reset-password --email EMAIL',
    async run ({ services, args }) {
      const v = options(args, { email: { type: 'string' } }, ['email'])
      return services.operator.resetOwnerPassword(String(v.email))
    }
  },
  'store set-feature': {
    usage: `store set-feature --store ID --feature ${FEATURE_KEYS.join('|')} (--enabled | --disabled | --plan-default)`,
    async run ({ services, args }) {
      const v = options(args, {
        store: { type: 'string' },
        feature: { type: 'string' },
        enabled: { type: 'boolean' },
        disabled: { type: 'boolean' },
        'plan-default': { type: 'boolean' }
      }, ['store', 'feature'])
      const chosen = [v.enabled, v.disabled, v['plan-default']].filter(Boolean).length
      if (chosen !== 1) throw new UsageError('Give exactly one of --enabled, --disabled or --plan-default')
      if (!(FEATURE_KEYS as readonly unknown[]).includes(v.feature)) {
        throw new UsageError(`--feature must be one of ${FEATURE_KEYS.join(', ')}`)
      }
      return services.features.setOverride({
        store: String(v.store),
        feature: String(v.feature),
        enabled: v['plan-default'] ? null : Boolean(v.enabled)
      })
    }
  }
}
