import t from 'tap'
import { build } from '../helper.js'
import { RESOURCES } from '../../src/lib/permissions.js'
import { RESOURCE_AREAS } from '../../src/lib/resource-areas.js'
import { signedInOwner } from './agent.js'

/** The admin key form grouped by area (issue "Integrator experience"). */

/** Escapes the way eta does, so descriptions with quotes or ampersands are matched as rendered. */
const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

t.test('the key form lists every resource once, under its area, with its description', async (t) => {
  const app = await build(t)
  const { agent } = await signedInOwner(app)
  const body = (await agent.get('/admin/keys/new')).body
  for (const resource of RESOURCES) {
    t.equal(body.split(`name="access_${resource}"`).length - 1, 1, `${resource} is offered once`)
  }
  const areas = body.split('<fieldset class="resource-area">').slice(1)
  t.equal(areas.length, RESOURCE_AREAS.length, 'one group per area')
  RESOURCE_AREAS.forEach((area, i) => {
    t.match(areas[i], `<legend>${html(area.name)}</legend>`)
    for (const { resource, description } of area.resources) {
      t.match(areas[i], `name="access_${resource}"`, `${resource} is under ${area.name}`)
      t.match(areas[i], html(description), `${resource} is described`)
    }
  })
})

t.test('a per-resource key made from the grouped form gets the scopes chosen', async (t) => {
  const app = await build(t)
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/keys/new')
  const res = await agent.post('/admin/keys', { name: 'Grouped', role: 'editor', mode: 'resource-write', access_reviews: 'write', access_events: 'read' })
  t.equal(res.statusCode, 303)
  const row = await app.db('api_keys').where({ org_id: tenant.orgId, name: 'Grouped' }).first()
  t.same(JSON.parse(row.scopes).sort(), ['events:read', 'reviews:write'])
})
