import type { FastifyPluginAsync, FastifyPluginCallback } from 'fastify'

type Plugin = FastifyPluginAsync | FastifyPluginCallback

/**
 * What a module declares about itself, in its index.ts: its name and the route plugins it mounts, each with its
 * prefix. The app (src/app.ts) registers the modules of src/modules/index.ts in their order, so adding a
 * resource's routes is its folder and one line in that list.
 */
export interface ModuleManifest {
  /** The module's folder. */
  name: string
  /** Its route plugins, mounted in this order; `prefix` is the path they sit under (none: at the root). */
  routes: Array<{ plugin: Plugin, prefix?: string }>
}

export function defineModule (manifest: ModuleManifest): ModuleManifest {
  return manifest
}
