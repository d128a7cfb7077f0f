import { AREAS, RESOURCES, resourcePolicy, type Resource } from './permissions.js'

/**
 * The resources grouped by area, each with one line on what access to it opens, as the modules declare them (their
 * manifests' `resources`). The admin key form lists them this way so a per-resource choice is made knowing what it
 * grants.
 */
export interface ResourceArea { name: string, resources: ReadonlyArray<{ resource: Resource, description: string }> }

export function resourceAreas (): ResourceArea[] {
  return AREAS.map((name) => ({
    name,
    resources: RESOURCES.flatMap((resource) => {
      const policy = resourcePolicy(resource)
      return policy?.area === name ? [{ resource, description: policy.description }] : []
    })
  }))
}
