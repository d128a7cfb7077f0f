/**
 * Shapes that plugins, modules, the OAuth provider and the workers all speak. They live here, below every one of
 * them, so no plugin imports a module for a type and no module imports a plugin (CONVENTIONS.md layering:
 * lib <- types <- repositories <- services <- plugins/routes <- app).
 */
import type { Role } from './lib/permissions.js'

export const PLANS = ['free', 'growth', 'pro'] as const
export type Plan = typeof PLANS[number]
export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'lapsed'] as const
export type SubscriptionStatus = typeof SUBSCRIPTION_STATUSES[number]

/**
 * A store environment (docs/contract/tenancy-and-roles.md#organizations-and-stores): the tenant unit every store-scoped
 * request names.
 */
export interface StoreEnv {
  id: string
  orgId: string
  name: string
  plan: Plan
  subscriptionStatus: SubscriptionStatus
  currentPeriodEnd: number | null
  allowedOrigins: string[]
  createdAt: number
}

export interface Person { id: string, email: string, name: string | null, passwordHash: string | null, createdAt: number }

/** What every authenticated request carries, whichever credential type produced it. */
export interface Credential {
  /** person: the admin application acting for a signed-in person (never resolved from a token on /v1). */
  type: 'api_key' | 'oauth' | 'person'
  /** Key id or grant id: the rate-limit budget and the audit actor. */
  id: string
  orgId: string
  role: Role
  /** Empty means unrestricted. */
  scopes: string[]
  personId: string | null
  /** Store environments the credential may use; null means every store of the organization. */
  storeIds: string[] | null
  /** When an expiring API key stops working (ms); absent or null: it does not expire. Keys it creates may not outlive it. */
  expiresAt?: number | null
  /**
   * Set by a resolver that has already re-checked the person's membership and role in its own lookup (the OAuth
   * resolver joins memberships), so the auth pipeline does not ask again.
   */
  membershipChecked?: boolean
  /**
   * Set when a partner's person acts on a client's store (docs/contract/tenancy-and-roles.md#partner-access): the
   * partner (agency) organization. `orgId` and `role` are then the client's and the lesser of the two roles
   * (plugins/tenancy.ts).
   */
  partnerOrgId?: string | null
}

/**
 * What a credential resolver answers for a token it recognizes, before any database work: the generation markers
 * (lib/freshness.ts) that every change to what the token resolves to bumps, and how to read the database.
 * plugins/credential-cache.ts keeps what `load` answers between requests while those markers stay unchanged.
 */
export interface CredentialClaim {
  /** Empty: the resolver cannot name its markers, so its credentials are never cached (read on every request). */
  markers: string[]
  /** When the token stops working whatever the database says (ms); `load` may narrow it. */
  expiresAt?: number | null
  /**
   * The credential from the database, or null when unknown, revoked or expired. Use (last_used_at) is recorded
   * here, at most once a minute and without waiting for it; a cached credential is loaded again now and then.
   */
  load: () => Promise<Credential | null>
}

/**
 * The audit log's actor string (docs/contract/tenancy-and-roles.md#audit-log): `api_key:<id>`, `oauth:<grant id>`,
 * `person:<id>`.
 */
export function actorOf (credential: Pick<Credential, 'type' | 'id'>): string {
  return `${credential.type}:${credential.id}`
}

export type { Log } from './lib/log.js'
