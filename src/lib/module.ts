import type { FastifyPluginAsync, FastifyPluginCallback } from 'fastify'
import type { DomainBus, DomainEventName } from './domain-events.js'
import type { Resource, ResourcePolicy } from './permissions.js'

type Plugin = FastifyPluginAsync | FastifyPluginCallback

/**
 * Everything the composition root (src/services.ts) builds, by name. Each module adds the services it provides by
 * merging into this interface (`declare module '../../lib/module.js'`) next to its manifest, so `app.services`, the
 * jobs, the CLI and the tests see one typed object made of every module's part.
 */
export interface Services {}

/**
 * What the caller of the composition root may hand in instead of what a module would build (a test's billing provider
 * or DNS resolver). A module that takes one declares it here by merging, beside its manifest.
 */
export interface Overrides {}

/** Makes one service from the others, named: a factory destructures what it needs (`({ db, clock }) => …`). */
export type Factory<K extends keyof Services> = (services: Services) => Services[K]

/**
 * What a module declares about itself, in its index.ts. The composition root, the permission registry and the app
 * are loops over the list of manifests (src/modules/index.ts), so adding a resource is its folder and one line there.
 */
export interface ModuleManifest {
  /** The module's folder. */
  name: string
  /**
   * The resources it serves, each with who may read and write it, its area and description (lib/permissions.ts); a
   * resource's scopes follow from its name, which the module merges into `ResourceNames`.
   */
  resources?: { [R in Resource]?: ResourcePolicy }
  /** The services it provides, each built once from the others by name; the order of building follows what they name. */
  services?: { [K in keyof Services]?: Factory<K> }
  /** The domain events it emits (lib/domain-events.ts); a reaction to an event no module emits is refused at start. */
  emits?: readonly DomainEventName[]
  /** Subscribes its reactions to other modules' events; runs once the services are built, in the order of the list. */
  reactions?: (bus: DomainBus, services: Services) => void
  /** Its route plugins, mounted in this order; `prefix` is the path they sit under (none: at the root). */
  routes?: Array<{ plugin: Plugin, prefix?: string }>
  /**
   * Its pages in the admin web application (modules/admin), mounted under /admin for a signed-in person with the
   * services as `{ services }`, and their links in the main navigation, each shown to whoever may read its resource.
   * Their views sit in the module's `admin/views/` and render as `<module>/admin/views/<name>`.
   */
  admin?: { pages: Array<FastifyPluginAsync<{ services: Services }>>, nav: AdminNavItem[] }
}

export interface AdminNavItem {
  label: string
  path: string
  resource: Resource
  /** Shown only while a store is chosen. */
  needsStore?: boolean
}

export function defineModule (manifest: ModuleManifest): ModuleManifest {
  return manifest
}
