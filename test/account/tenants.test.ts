import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { addMember, makeStore, makeTenant } from '../factories.js'

t.test('one tenant\'s member list never shows another tenant\'s people', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  await addMember(app, theirs, 'editor')
  const res = await call(app, { method: 'GET', url: '/v1/account/members', key: mine.key, store: mine.storeId })
  t.same(res.json().data.map((m: { id: string }) => m.id), [mine.owner.id])
})

t.test('one tenant cannot remove another tenant\'s member', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  const editor = await addMember(app, theirs, 'editor')
  const res = await call(app, { method: 'DELETE', url: `/v1/account/members/${editor.id}`, key: mine.key, store: mine.storeId })
  t.equal(res.statusCode, 404)
  t.equal((await app.db('memberships').where({ org_id: theirs.orgId, person_id: editor.id })).length, 1)
})

t.test('one tenant\'s store list never shows another tenant\'s stores', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  const second = await makeStore(app, mine)
  await makeStore(app, theirs)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: mine.key })
  t.same(res.json().data.map((s: { id: string }) => s.id).sort(), [mine.storeId, second].sort())
})

t.test('one tenant\'s audit log never shows another tenant\'s entries', async (t) => {
  const app = await sharedApp()
  const mine = await makeTenant(app)
  const theirs = await makeTenant(app)
  await call(app, { method: 'GET', url: '/v1/account/members', key: theirs.key, store: theirs.storeId })
  const res = await call(app, { method: 'GET', url: '/v1/account/audit-log', key: mine.key, store: mine.storeId })
  const rows = await app.db('audit_log').where({ org_id: mine.orgId })
  t.equal(res.json().meta.total, rows.length)
  t.notOk(res.body.includes(theirs.orgId))
})
