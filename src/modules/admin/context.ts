import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../../errors.js'
import { roleAllows, roleRank, type Access, type Resource, type Role } from '../../lib/permissions.js'
import { lesserRole, type PartnersService } from '../partners/index.js'
import type { Credential, StoreEnv } from '../../types.js'
import type { Person, PeopleRepository } from '../account/index.js'
import { takeFlash } from './flash.js'
import { helpers } from './helpers.js'

/** Who is signed in, for which organization and store, re-read from the database on every request. */
export interface AdminContext {
  person: Person
  orgs: Array<{ id: string, name: string, role: Role }>
  org: { id: string, name: string, role: Role }
  stores: StoreEnv[]
  store: StoreEnv | null
  /** The person acting with their membership role, for the services' no-escalation and audit rules. */
  actor: Credential
  /** The stores of the clients that granted the person's organization partner access, for the store switcher. */
  clientStores: ClientStore[]
  /**
   * Set while the current store is a client's (docs/contract/tenancy-and-roles.md#partner-access): `org`, `stores` and
   * `actor` are then the client's, with the lesser of the person's role and the grant, and this names the person's own
   * organization.
   */
  partnerOf: { id: string, name: string } | null
}

export type ClientStore = Awaited<ReturnType<PartnersService['clientStores']>>[number]

/** Org-level management a partner never does for a client, as the API refuses it (lib/permissions.ts). */
const PARTNER_REFUSED = new Set<Resource>(['api-keys', 'orgs', 'partner'])

declare module 'fastify' {
  interface FastifyRequest { admin: AdminContext | null }
}

/**
 * Membership and role are re-checked on every request (docs/contract/tenancy-and-roles.md#authentication): a removed
 * teammate's next page load finds no organization. The session's current organization and store are corrected when
 * stale.
 */
export async function loadContext (
  app: FastifyInstance,
  people: PeopleRepository,
  request: FastifyRequest,
  partners: PartnersService
): Promise<AdminContext | 'no_membership' | null> {
  const session = await app.sessions.read(request)
  if (!session) return null
  const person = await people.findPerson(session.personId)
  if (!person) return null
  const orgs = await people.organizationsOf(person.id)
  const org = orgs.find((o) => o.id === session.orgId) ?? orgs[0]
  if (!org) return 'no_membership'
  const stores = await app.stores.listForOrg(org.id)
  const clientStores = await partners.clientStores(org.id)
  const asPartner = stores.some((s) => s.id === session.storeEnvId)
    ? undefined
    : clientStores.find((c) => c.store.id === session.storeEnvId)
  if (asPartner && org.id === session.orgId) return partnerContext(person, orgs, org, asPartner, clientStores)
  const store = stores.find((s) => s.id === session.storeEnvId) ?? stores[0] ?? null
  if (org.id !== session.orgId || (store?.id ?? null) !== session.storeEnvId) {
    await app.sessions.update(request, { orgId: org.id, storeEnvId: store?.id ?? null })
  }
  const actor: Credential = {
    type: 'person',
    id: person.id,
    orgId: org.id,
    role: org.role,
    scopes: [],
    personId: person.id,
    storeIds: null
  }
  return { person, orgs, org, stores, store, actor, clientStores, partnerOf: null }
}

/** Working in a client's store: the client's organization and stores, with the lesser role, the partner noted. */
function partnerContext (
  person: Person,
  orgs: AdminContext['orgs'],
  own: AdminContext['org'],
  current: ClientStore,
  clientStores: ClientStore[]
): AdminContext {
  const role = lesserRole(own.role, current.role)
  const org = { id: current.client.id, name: current.client.name, role }
  const stores = clientStores.filter((c) => c.client.id === org.id).map((c) => c.store)
  const actor: Credential = {
    type: 'person',
    id: person.id,
    orgId: org.id,
    role,
    scopes: [],
    personId: person.id,
    storeIds: null,
    partnerOrgId: own.id
  }
  return { person, orgs, org, stores, store: current.store, actor, clientStores, partnerOf: { id: own.id, name: own.name } }
}

/** Pages that manage the organization itself (keys, members, OAuth clients, partners): never for a client. */
const PARTNER_REFUSED_PATHS = ['/admin/keys', '/admin/members', '/admin/connections/clients', '/admin/partners']

/**
 * Refuses, as the API does, org-level management by a partner working in a client's store (any change is a POST).
 * Decided on the route the request reached, not on its URL as sent: the router decodes the path, so a URL that
 * spells a page in percent-escapes (`/admin/%6Dembers/invite`) reaches the same route.
 */
export function refusePartnerManagement (request: FastifyRequest): void {
  const path = request.routeOptions.url ?? request.url.split('?')[0]
  if (request.admin?.partnerOf && request.method === 'POST' && PARTNER_REFUSED_PATHS.some((p) => path === p || path.startsWith(`${p}/`))) {
    throw new errors.CredentialNotAllowed()
  }
}

/**
 * The store the person works in. A lapsed store's pages refuse as the API does (403 subscription_expired), except
 * the ones the API serves then too (billing, support): `lapsed: true`.
 */
export function currentStore (ctx: AdminContext, { lapsed = false }: { lapsed?: boolean } = {}): StoreEnv {
  if (!ctx.store) throw new errors.NotFound('Store environment')
  if (!lapsed && ctx.store.subscriptionStatus === 'lapsed') throw new errors.SubscriptionExpired()
  return ctx.store
}

/**
 * The same role table as the API (docs/contract/tenancy-and-roles.md#roles), plus a least role for owner/admin-only
 * pages.
 */
export function can (ctx: AdminContext | null, resource: Resource, access: Access, minRole?: Role): boolean {
  if (!ctx) return false
  if (ctx.partnerOf && access === 'write' && PARTNER_REFUSED.has(resource)) return false
  if (minRole && roleRank(ctx.org.role) < roleRank(minRole)) return false
  return roleAllows(ctx.org.role, resource, access) === 'allowed'
}

export function requireAccess (request: FastifyRequest, resource: Resource, access: Access, minRole?: Role): AdminContext {
  const ctx = request.admin
  if (!ctx || !can(ctx, resource, access, minRole)) throw new errors.RoleForbidden(resource)
  return ctx
}

/** Every page gets the signed-in context, a CSRF token for its forms, and the one-time flash. */
export function render (request: FastifyRequest, reply: FastifyReply, view: string, data: Record<string, unknown> = {}, status = 200) {
  const ctx = request.admin
  const flash = takeFlash(request, reply)
  // Views are found from src/modules: a module's own pages name theirs by path, this module's are named alone.
  return reply.status(status).view(view.includes('/') ? `${view}.eta` : `admin/views/${view}.eta`, {
    ctx,
    csrf: reply.generateCsrf(),
    flash,
    path: request.url.split('?')[0],
    can: (resource: Resource, access: Access, minRole?: Role) => can(ctx, resource, access, minRole),
    nav: request.server.modules.flatMap((module) => module.admin?.nav ?? []),
    h: helpers,
    ...data
  })
}

export function redirect (reply: FastifyReply, to: string) {
  return reply.redirect(to, 303)
}

/** A service's 4xx is shown on the form again with what was typed; anything else goes on to the error page. */
export function formErrorStatus (err: unknown): number {
  const status = (err as { statusCode?: number }).statusCode
  if (!status || status >= 500) throw err
  return status
}
