import { errors } from '../../errors.js'
import { KEY_ROLES, RESOURCES, roleRank, type Role } from '../../lib/permissions.js'
import type { CreateKeyInput } from '../api-keys/index.js'

/** docs/contract/tenancy-and-roles.md#api-keys: exactly these three choices; a Viewer key is not offered the third. */
export const KEY_MODES = [
  { value: 'read', label: 'Read-only', hint: 'Read every resource, write nothing.' },
  { value: 'resource-read', label: 'Per-resource read', hint: 'Read only the resources you choose.' },
  { value: 'resource-write', label: 'Per-resource read and write', hint: 'Choose read or read and write for each resource.' }
] as const
export type KeyMode = typeof KEY_MODES[number]['value']

export type KeyFormBody = Record<string, string | undefined>

/**
 * The key roles a person may hand out: never above their own (docs/contract/tenancy-and-roles.md#no-escalation), never
 * owner.
 */
export function keyRolesFor (role: Role): Role[] {
  return KEY_ROLES.filter((r) => roleRank(r) <= roleRank(role))
}

/** `datetime-local` gives `YYYY-MM-DDTHH:MM`; the form says it is UTC. */
function expiryOf (value: string | undefined): string | undefined {
  const text = value?.trim()
  if (!text) return undefined
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) throw new errors.InvalidExpiry('Enter the expiry as a date and time (UTC)')
  return `${text.length === 16 ? `${text}:00` : text}Z`
}

/** Turns the create form into the API's create-key input; the api-keys service then applies its own rules. */
export function keyInputFromForm (body: KeyFormBody): CreateKeyInput {
  const name = body.name?.trim() ?? ''
  if (!name) throw new errors.InvalidRequest('Give the key a name, e.g. the integration that will use it')
  const role = body.role as Role
  if (!(KEY_ROLES as readonly string[]).includes(role)) throw new errors.InvalidRequest('Choose a role: admin, editor or viewer')
  const mode = body.mode as KeyMode
  let scopes: string[]
  if (mode === 'read') {
    scopes = ['read']
  } else if (mode === 'resource-read' || mode === 'resource-write') {
    if (mode === 'resource-write' && role === 'viewer') {
      throw new errors.InvalidRequest('A Viewer key cannot write: choose read-only or per-resource read')
    }
    scopes = []
    for (const resource of RESOURCES) {
      const access = body[`access_${resource}`]
      if (access === 'write' && mode === 'resource-read') {
        throw new errors.InvalidRequest('Per-resource read keys cannot write: choose per-resource read and write')
      }
      if (access === 'read' || access === 'write') scopes.push(`${resource}:${access}`)
    }
    if (scopes.length === 0) throw new errors.InvalidRequest('Choose at least one resource')
  } else {
    throw new errors.InvalidRequest('Choose what the key may do')
  }
  return { name, role, scopes, expiresAt: expiryOf(body.expires_at) }
}
