import t from 'tap'
import { RESOURCES } from '../../src/lib/permissions.js'
import { RESOURCE_AREAS } from '../../src/lib/resource-areas.js'

t.test('every resource is listed in exactly one area', async (t) => {
  const listed = RESOURCE_AREAS.flatMap((area) => area.resources.map((r) => r.resource))
  t.same([...listed].sort(), [...RESOURCES].sort(), 'each resource once, and nothing that is not a resource')
})

t.test('every resource has a one-line description', async (t) => {
  for (const area of RESOURCE_AREAS) {
    for (const { resource, description } of area.resources) {
      t.ok(description.trim().length > 10 && !description.includes('\n'), `${resource} (${area.name}) has a description`)
    }
  }
})
