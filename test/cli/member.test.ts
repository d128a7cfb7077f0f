import t from 'tap'
import { sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'
import { base62 } from '../../src/lib/ids.js'
import { onlyJson, runCli } from './run-cli.js'

t.test('member add --json prints the new person with a one-time password and adds the membership', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const email = `new-${base62(8).toLowerCase()}@example.test`
  const res = await runCli(['member', 'add', '--org', tenant.orgId, '--email', email, '--role', 'editor', '--json'])
  t.equal(res.code, 0, res.stderr)
  const out = onlyJson(res.stdout) as { person: { id: string, email: string, password: string } }
  t.match(out, { person: { id: /^usr_/, email, password: /^[0-9A-Za-z]{20}$/ } })
  t.equal((await app.db('memberships').where({ org_id: tenant.orgId, person_id: out.person.id }).first()).role, 'editor')
})

t.test('member add with the viewer role exits non-zero: people are never viewers', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli(['member', 'add', '--org', tenant.orgId, '--email', 'v@example.test', '--role', 'viewer', '--json'])
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, /owner, admin or editor/)
  t.equal((await app.db('memberships').where({ org_id: tenant.orgId })).length, 1)
})

t.test('member add of an existing member exits non-zero', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli(['member', 'add', '--org', tenant.orgId, '--email', tenant.owner.email, '--role', 'admin', '--json'])
  t.not(res.code, 0)
  t.match(res.stderr, /already a member/)
})
