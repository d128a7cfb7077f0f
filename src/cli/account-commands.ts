import { PLANS, SUBSCRIPTION_STATUSES, type Plan, type SubscriptionStatus } from '../types.js'
import type { Role } from '../lib/permissions.js'
import { options, UsageError, type Command } from './command.js'

function plan (value: unknown, fallback?: Plan): Plan | undefined {
  if (value === undefined) return fallback
  if (!(PLANS as readonly unknown[]).includes(value)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`)
  return value as Plan
}

/** Checked and normalised by the service, as the API and the admin pages do (src/lib/origins.ts). */
function origins (value: unknown): string[] {
  return (value as string[] | undefined) ?? []
}

export const commands: Record<string, Command> = {
  bootstrap: {
    usage: 'bootstrap --org NAME --store NAME --owner EMAIL [--plan free|growth|pro] [--origin URL]...',
    async run ({ services, args }) {
      const v = options(args, {
        org: { type: 'string' },
        store: { type: 'string' },
        owner: { type: 'string' },
        plan: { type: 'string' },
        origin: { type: 'string', multiple: true }
      }, ['org', 'store', 'owner'])
      if (!/^[^@\s]+@[^@\s]+$/.test(String(v.owner))) throw new UsageError('--owner must be an email address')
      return services.bootstrap.bootstrap({
        org: String(v.org),
        store: String(v.store),
        owner: String(v.owner),
        plan: plan(v.plan),
        origins: origins(v.origin)
      })
    }
  },
  'store create': {
    usage: 'store create --org ID --name NAME [--plan free|growth|pro] [--origin URL]...',
    async run ({ services, args }) {
      const v = options(args, {
        org: { type: 'string' },
        name: { type: 'string' },
        plan: { type: 'string' },
        origin: { type: 'string', multiple: true }
      }, ['org', 'name'])
      return services.bootstrap.createStore({ org: String(v.org), name: String(v.name), plan: plan(v.plan), origins: origins(v.origin) })
    }
  },
  'store set-plan': {
    usage: 'store set-plan --store ID --plan free|growth|pro [--status trialing|active|past_due|lapsed]',
    async run ({ services, args }) {
      const v = options(args, { store: { type: 'string' }, plan: { type: 'string' }, status: { type: 'string' } }, ['store', 'plan'])
      if (v.status !== undefined && !(SUBSCRIPTION_STATUSES as readonly unknown[]).includes(v.status)) {
        throw new UsageError(`--status must be one of ${SUBSCRIPTION_STATUSES.join(', ')}`)
      }
      // Through billing: the change appends subscription.updated and is audited like an owner's (actor `cli`).
      return services.billing.apply(
        { store: String(v.store), plan: plan(v.plan)!, status: v.status as SubscriptionStatus | undefined },
        'cli'
      )
    }
  },
  'store set-origins': {
    usage: 'store set-origins --store ID (--origin URL [--origin URL]... | --none)',
    async run ({ services, args }) {
      const v = options(args, { store: { type: 'string' }, origin: { type: 'string', multiple: true }, none: { type: 'boolean' } }, [
        'store'
      ])
      const list = origins(v.origin)
      // Replacing with nothing closes the storefront, so it has to be asked for, not left out by mistake.
      if (v.none && list.length) throw new UsageError('--none allows no origin; it cannot go with --origin')
      if (!v.none && !list.length) throw new UsageError('give at least one --origin, or --none to allow no origin (the storefront closes)')
      return services.bootstrap.setOrigins({ store: String(v.store), origins: list })
    }
  },
  'member add': {
    usage: 'member add --org ID --email EMAIL --role owner|admin|editor',
    async run ({ services, args }) {
      const v = options(args, { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } }, ['org', 'email', 'role'])
      return services.bootstrap.addMember(String(v.org), String(v.email), v.role as Role)
    }
  }
}
