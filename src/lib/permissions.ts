/**
 * Roles, resources and scopes: docs/contract/tenancy-and-roles.md#scopes and
 * docs/contract/tenancy-and-roles.md#authentication, docs/contract/tenancy-and-roles.md#roles. Both the role and the
 * scopes must allow a request; neither widens the other.
 */
/**
 * The resources, each declared by the module that serves it (its manifest's `resources`, src/lib/module.ts) and
 * named here by merging into this interface (`declare module '../../lib/permissions.js'`), so a route's
 * `config.resource` is checked when it compiles.
 */
export interface ResourceNames {}
export type Resource = keyof ResourceNames & string
export type Access = 'read' | 'write'

export const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const
export type Role = typeof ROLES[number]
export const PERSON_ROLES = ['owner', 'admin', 'editor'] as const
export const KEY_ROLES = ['admin', 'editor', 'viewer'] as const

/** The groups the admin key form lists resources in, in this order (lib/resource-areas.ts). */
export const AREAS = ['Catalog & reviews', 'Customers & loyalty', 'Email', 'Events & integrations', 'Insight', 'Account'] as const

/**
 * What a module declares of a resource it serves. Who may touch it (docs/contract/tenancy-and-roles.md#roles): the
 * least role that reads it (editors and viewers do not see keys, billing, the organization or backups) and the least
 * that writes it (editors write the store's content and data, admins the rest, the owner alone billing and the
 * organization). Where the admin key form lists it, and one line on what access to it opens.
 */
export interface ResourcePolicy {
  read: 'viewer' | 'admin'
  write: 'editor' | 'admin' | 'owner'
  area: typeof AREAS[number]
  description: string
}

const POLICIES = new Map<string, ResourcePolicy>()

/** Every resource, in the order the modules declared them. */
export const RESOURCES: readonly Resource[] = []

/**
 * The permission registry is the modules' declarations: src/modules/index.ts hands its list here once it is
 * complete. Until then no resource exists, so nothing is allowed.
 */
export function declareResources (modules: ReadonlyArray<{ name: string, resources?: Partial<Record<Resource, ResourcePolicy>> }>): void {
  for (const { name, resources = {} } of modules) {
    for (const [resource, policy] of Object.entries(resources) as Array<[Resource, ResourcePolicy]>) {
      const known = POLICIES.get(resource)
      if (known) throw new Error(`Resource ${resource} is declared twice (again by module ${name})`)
      POLICIES.set(resource, policy);
      (RESOURCES as Resource[]).push(resource)
    }
  }
}

/** What the module serving `resource` declared of it. */
export function resourcePolicy (resource: Resource): ResourcePolicy | undefined {
  return POLICIES.get(resource)
}

export function isResource (value: string): value is Resource {
  return POLICIES.has(value)
}

export function roleRank (role: Role): number {
  return ROLES.indexOf(role)
}

export function accessFor (method: string): Access {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'read' : 'write'
}

export type RoleVerdict = 'allowed' | 'read_only' | 'forbidden'

export function roleAllows (role: Role, resource: Resource, access: Access): RoleVerdict {
  const policy = POLICIES.get(resource)
  if (!policy) return 'forbidden'
  // docs/contract/api-conventions.md#errors: any write by a viewer is role_read_only, whatever else the role forbids.
  if (role === 'viewer' && access === 'write') return 'read_only'
  const least = access === 'read' ? policy.read : policy.write
  return roleRank(role) >= roleRank(least) ? 'allowed' : 'forbidden'
}

/**
 * docs/contract/tenancy-and-roles.md#org-level-authority: org-level management (API keys, members and ownership, OAuth
 * clients, partners) stays with org-level credentials. Every write on a route under one of these /v1 paths is
 * management, so a route added there later is covered without remembering a flag; reads (listing keys or members) are
 * not management.
 */
const ORG_MANAGEMENT_PATHS = [
  '/v1/api-keys', '/v1/account/members', '/v1/connectors/oauth-clients',
  '/v1/orgs/current/partners', '/v1/orgs/current/transfer-ownership'
]

/** `routeUrl` is the route's pattern (e.g. `/v1/api-keys/:id`), not the requested URL. */
export function isOrgManagement (routeUrl: string, access: Access): boolean {
  return access === 'write' && ORG_MANAGEMENT_PATHS.some((path) => routeUrl === path || routeUrl.startsWith(`${path}/`))
}

export type Refusal = 'role_read_only' | 'role_forbidden' | 'insufficient_scope' | 'credential_not_allowed'

/** What a route asks of its caller beyond a credential (its fastify route config, with the route's pattern). */
export interface RouteRule { url: string, resource: Resource, minRole?: Role, scopeExempt?: boolean, scopesOf?: readonly Resource[] }

/** The resources whose scopes open a route, any one of them: its own, unless it accepts others (`scopesOf`). */
export function scopeResources (route: Pick<RouteRule, 'resource' | 'scopesOf'>): readonly Resource[] {
  return route.scopesOf ?? [route.resource]
}

/** How a refusal names what is missing: `events (or outbound-webhooks)` for a route that accepts either scope. */
export function scopeLabel (route: Pick<RouteRule, 'resource' | 'scopesOf'>): string {
  const [first, ...others] = scopeResources(route)
  return others.length ? `${first} (or ${others.join(', ')})` : first
}

/**
 * Role, then scopes, then org-level management (docs/contract/tenancy-and-roles.md#authentication and
 * docs/contract/api-conventions.md#errors): the first refusal a credential meets on a route, or null. The order decides
 * which refusal a caller sees first; the pipeline's access step (pipeline/check-access.ts) answers with it and the MCP
 * server hides the tools it names.
 */
export function refusalFor (
  caller: { type: string, role: Role, scopes: readonly string[], partnerOrgId?: string | null },
  route: RouteRule,
  access: Access
): Refusal | null {
  const verdict = roleAllows(caller.role, route.resource, access)
  if (verdict === 'read_only') return 'role_read_only'
  if (verdict === 'forbidden' || (route.minRole && roleRank(caller.role) < roleRank(route.minRole))) return 'role_forbidden'
  if (!route.scopeExempt && !scopeResources(route).some((resource) => scopesAllow(caller.scopes, resource, access))) {
    return 'insufficient_scope'
  }
  // A token is bound to a person and chosen stores, and nothing it creates may outlive its connection.
  if (caller.type === 'oauth' && isOrgManagement(route.url, access)) return 'credential_not_allowed'
  // A partner acting for a client never manages the client's keys, members or partners
  // (docs/contract/tenancy-and-roles.md#partner-access).
  if (caller.partnerOrgId && isOrgManagement(route.url, access)) return 'credential_not_allowed'
  return null
}

export function isValidScope (scope: string): boolean {
  if (scope === 'read' || scope === 'write') return true
  const at = scope.lastIndexOf(':')
  if (at <= 0) return false
  const action = scope.slice(at + 1)
  return (action === 'read' || action === 'write') && isResource(scope.slice(0, at))
}

/** Empty scopes mean unrestricted. `write` on a resource implies `read` on it. */
export function scopesAllow (scopes: readonly string[], resource: string, access: Access): boolean {
  if (scopes.length === 0) return true
  for (const scope of scopes) {
    if (scope === 'write') return true
    if (scope === 'read' && access === 'read') return true
    if (scope === `${resource}:write`) return true
    if (scope === `${resource}:read` && access === 'read') return true
  }
  return false
}

/** Whether `scope` is covered by `held` (used to refuse minting a wider credential). */
function scopeCovered (held: readonly string[], scope: string): boolean {
  if (scope === 'read') return held.includes('read') || held.includes('write')
  if (scope === 'write') return held.includes('write')
  const at = scope.lastIndexOf(':')
  return scopesAllow(held, scope.slice(0, at), scope.slice(at + 1) as Access)
}

export function scopesWithin (held: readonly string[], requested: readonly string[]): boolean {
  if (held.length === 0) return true
  if (requested.length === 0) return false
  return requested.every((scope) => scopeCovered(held, scope))
}
