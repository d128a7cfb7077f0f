import { errors } from '../../errors.js'
import { RESOURCES, roleAllows, scopesAllow, type Resource, type Role } from '../../lib/permissions.js'
import { EVENT_TYPES, eventResource, type EventType } from './event-types.js'

/**
 * docs/contract/event-visibility.md#who-sees-which-events: what a credential sees of events follows its role and read
 * scopes on each event's resource (`order.*` needs `orders:read`), on the event log, on webhook subscriptions and on
 * connector hooks.
 */
export interface EventReader { role: Role, scopes: readonly string[] }

/**
 * The log's own scopes: `events:read`, accepted beside `outbound-webhooks:read` (the log's first home). The routes'
 * `scopesOf`, so that tenancy refuses and MCP's tools/list hides by the same rule.
 */
export const LOG_SCOPES = ['events', 'outbound-webhooks'] as const satisfies readonly Resource[]

function mayRead (reader: EventReader, resource: Resource): boolean {
  return roleAllows(reader.role, resource, 'read') === 'allowed' && scopesAllow(reader.scopes, resource, 'read')
}

/** A type without a known resource is only for a credential that may read everything. */
export function mayReadEvent (reader: EventReader, type: string): boolean {
  const resource = eventResource(type)
  return resource === null ? readsEverything(reader) : mayRead(reader, resource)
}

/** Every resource, so also any event type added later: `["*"]` may then stay `["*"]`. */
function readsEverything (reader: EventReader): boolean {
  return RESOURCES.every((resource) => mayRead(reader, resource))
}

function readableEventTypes (reader: EventReader): EventType[] {
  return EVENT_TYPES.filter((type) => mayReadEvent(reader, type))
}

/**
 * The event types a reader sees, or undefined for all of them (so also types added later). Every page of the log
 * and every poll asks, and the answer depends on the role and scopes alone, so it is worked out once per pair
 * (~10 µs each time otherwise). Credentials come with few distinct scope sets; the memo is emptied if that is not so.
 */
const visible = new Map<string, readonly EventType[] | undefined>()
const MAX_VISIBLE = 1_000

export function visibleEventTypes (reader: EventReader): readonly EventType[] | undefined {
  // Stryker disable next-line StringLiteral: every scope ends in `read` or `write`, so no two lists join alike
  const key = `${reader.role}\0${reader.scopes.join(' ')}`
  // Stryker disable next-line ConditionalExpression: the memo only spares working the same answer out again
  if (visible.has(key)) return visible.get(key)
  const types = readsEverything(reader) ? undefined : readableEventTypes(reader)
  // Stryker disable next-line all: when the memo is emptied changes no answer, only how often it is worked out
  if (visible.size >= MAX_VISIBLE) visible.clear()
  visible.set(key, types)
  return types
}

/** Refuses with the error of the first gate that fails, as the tenancy step does: role, then scopes. */
export function assertMayReadEvent (reader: EventReader, type: string): void {
  if (mayReadEvent(reader, type)) return
  const resource = eventResource(type) ?? 'events'
  if (roleAllows(reader.role, resource, 'read') !== 'allowed') throw new errors.RoleForbidden(resource)
  throw new errors.InsufficientScope('read', resource)
}
