import t, { type Test } from 'tap'
import { sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { RESOURCES } from '../../src/lib/permissions.js'
import { resourceAreas } from '../../src/lib/resource-areas.js'
import { signedInOwner } from './agent.js'

/** The admin key form grouped by area, and the audit log with names and an action picker (issue "Integrator experience"). */

/** Escapes the way eta does, so descriptions with quotes or ampersands are matched as rendered. */
const html = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

t.test('the key form lists every resource once, under its area, with its description', async (t) => {
  const app = await sharedApp()
  const { agent } = await signedInOwner(app)
  const body = (await agent.get('/admin/keys/new')).body
  for (const resource of RESOURCES) {
    t.equal(body.split(`name="access_${resource}"`).length - 1, 1, `${resource} is offered once`)
  }
  const areas = body.split('<fieldset class="resource-area">').slice(1)
  t.equal(areas.length, resourceAreas().length, 'one group per area')
  resourceAreas().forEach((area, i) => {
    t.match(areas[i], `<legend>${html(area.name)}</legend>`)
    for (const { resource, description } of area.resources) {
      t.match(areas[i], `name="access_${resource}"`, `${resource} is under ${area.name}`)
      t.match(areas[i], html(description), `${resource} is described`)
    }
  })
})

t.test('a per-resource key made from the grouped form gets the scopes chosen', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/keys/new')
  const res = await agent.post('/admin/keys', {
    name: 'Grouped',
    role: 'editor',
    mode: 'resource-write',
    access_reviews: 'write',
    access_events: 'read'
  })
  t.equal(res.statusCode, 303)
  const row = await app.db('api_keys').where({ org_id: tenant.orgId, name: 'Grouped' }).first()
  t.same(JSON.parse(row.scopes).sort(), ['events:read', 'reviews:write'])
})

/** An owner who has created a key through the form, so the log holds an entry naming a person and a key. */
async function ownerWithKey (t: Test) {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  await agent.get('/admin/keys/new')
  t.equal((await agent.post('/admin/keys', { name: 'Shopify sync', role: 'viewer', mode: 'read' })).statusCode, 303)
  const key = await app.db('api_keys').where({ org_id: tenant.orgId, name: 'Shopify sync' }).first()
  return { app, tenant, agent, keyId: key.id as string }
}

t.test('the audit log shows a key by its name and a person by their email, with the ids kept beside them', async (t) => {
  const { tenant, agent, keyId } = await ownerWithKey(t)
  const res = await agent.get('/admin/audit-log')
  t.equal(res.statusCode, 200)
  t.match(res.body, `<span class="audit-name" title="api_key:${keyId}">Shopify sync</span>`)
  t.match(res.body, `<span class="audit-name" title="person:${tenant.owner.id}">${html(tenant.owner.email)}</span>`)
  t.match(res.body, `<small class="ref"><code>api_key:${keyId}</code></small>`, 'the id stays visible in small monospace')
})

t.test('the audit log offers a select of the actions its log holds instead of a free-text filter', async (t) => {
  const { agent } = await ownerWithKey(t)
  const body = (await agent.get('/admin/audit-log')).body
  t.match(body, '<select name="action">')
  t.match(body, '<option value="api_key.created">API key created</option>')
  t.notMatch(body, 'value="member.removed"', 'an action the log does not hold is not offered')
  t.notMatch(body, '<input type="text" name="action"')
})

t.test('filtering the audit log by a listed action shows only that action', async (t) => {
  const { app, tenant, agent } = await ownerWithKey(t)
  await app.db('audit_log').insert({
    org_id: tenant.orgId,
    at: Date.now(),
    action: 'member.role_changed',
    actor: `person:${tenant.owner.id}`,
    subject: `person:${tenant.owner.id}`
  })
  const res = await agent.get('/admin/audit-log?action=member.role_changed')
  t.equal(res.statusCode, 200)
  t.match(res.body, '<option value="member.role_changed" selected>')
  t.match(res.body, 'title="member.role_changed"')
  t.notMatch(res.body, 'title="api_key.created"')
})

t.test('an unknown action in the address shows every entry rather than an error', async (t) => {
  const { agent } = await ownerWithKey(t)
  const res = await agent.get('/admin/audit-log?action=no.such_action')
  t.equal(res.statusCode, 200)
  t.match(res.body, 'title="api_key.created"', 'the unknown filter is ignored')
  t.match(res.body, 'This log has no action “no.such_action”')
  const long = await agent.get(`/admin/audit-log?action=${'x'.repeat(200)}`)
  t.equal(long.statusCode, 400, 'an over-long value is a bad request, not a server error')
})

t.test('the audit log never shows another organization\'s key names or member emails', async (t) => {
  const { app, tenant, agent } = await ownerWithKey(t)
  const other = await makeTenant(app)
  const otherKey = await app.services.apiKeys.create({ type: 'cli', orgId: other.orgId, role: 'admin', scopes: [] }, {
    name: 'Rival secret integration',
    role: 'admin',
    scopes: []
  }, null)
  await app.db('audit_log').insert({
    org_id: tenant.orgId,
    at: Date.now(),
    action: 'api_key.revoked',
    actor: `person:${other.owner.id}`,
    subject: `api_key:${otherKey.id}`
  })
  const body = (await agent.get('/admin/audit-log')).body
  t.notMatch(body, 'Rival secret integration')
  t.notMatch(body, html(other.owner.email))
  t.match(body, `<code>api_key:${otherKey.id}</code>`, 'the foreign id is shown unresolved')
  t.match(body, `<code>person:${other.owner.id}</code>`)
})

t.test('the audit log looks names up with one query per kind, however many entries it shows', async (t) => {
  const { app, tenant, agent } = await ownerWithKey(t)
  for (let i = 0; i < 5; i++) {
    const key = await app.services.apiKeys.create({ type: 'cli', orgId: tenant.orgId, role: 'viewer', scopes: [] }, {
      name: `Batch ${i}`,
      role: 'viewer',
      scopes: []
    }, null)
    await app.db('audit_log').insert({
      org_id: tenant.orgId,
      at: Date.now(),
      action: 'api_key.revoked',
      actor: `person:${tenant.owner.id}`,
      subject: `api_key:${key.id}`
    })
  }
  const sql: string[] = []
  const listen = (query: { sql: string }) => { sql.push(query.sql) }
  app.db.on('query', listen)
  const body = (await agent.get('/admin/audit-log')).body
  app.db.removeListener('query', listen)
  for (let i = 0; i < 5; i++) t.match(body, `>Batch ${i}</span>`)
  // The sign-in check reads people and keys too; the name look-ups are the queries that take a list of ids.
  const lookups = (table: string) => sql.filter((q) => new RegExp(`from [\`"]${table}[\`"].* in \\(`, 'i').test(q)).length
  t.equal(lookups('api_keys'), 1, 'one query for the keys')
  t.equal(lookups('people'), 1, 'one query for the people')
})
