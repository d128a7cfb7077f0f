import t from 'tap'
// The resources and their areas are what the modules declare: importing their list fills the registry, as for the app.
import '../../src/modules/index.js'
import { AREAS, RESOURCES } from '../../src/lib/permissions.js'
import { resourceAreas } from '../../src/lib/resource-areas.js'

t.test('every resource is listed once, in the area its module names', async (t) => {
  const listed = resourceAreas().flatMap((area) => area.resources.map((r) => r.resource))
  t.same([...listed].sort(), [...RESOURCES].sort(), 'each resource once, and nothing that is not a resource')
})

t.test('no area of the key form is empty', async (t) => {
  t.same(resourceAreas().map((area) => area.name), [...AREAS], 'every area, in its order')
  for (const area of resourceAreas()) t.ok(area.resources.length > 0, `${area.name} lists a resource`)
})

t.test('every resource has a one-line description', async (t) => {
  for (const area of resourceAreas()) {
    for (const { resource, description } of area.resources) {
      t.ok(description.trim().length > 10 && !description.includes('\n'), `${resource} (${area.name}) has a description`)
    }
  }
})
