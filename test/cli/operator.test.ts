import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { call, onMysql, sharedApp, testConfig } from '../helper.js'
import { makeTenant } from '../factories.js'
import { runCli as runInProcess } from '../../src/cli/run.js'
import { onlyJson, runCli, spawnCli } from './run-cli.js'

t.test('org list --json lists the organizations with their number of stores', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli(['org', 'list', '--json'])
  t.equal(res.code, 0, res.stderr)
  const out = onlyJson(res.stdout) as { organizations: Array<{ id: string, stores: number }> }
  t.match(out.organizations.find((o) => o.id === tenant.orgId), { id: tenant.orgId, stores: 1, createdAt: /^\d{4}-/ })
})

t.test('store list --json lists an organization\'s stores with plan, status and origins', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli(['store', 'list', '--org', tenant.orgId, '--json'])
  t.equal(res.code, 0, res.stderr)
  t.match(onlyJson(res.stdout), { stores: [{ id: tenant.storeId, plan: String, status: String, origins: Array }] })
})

t.test('store list for an unknown organization exits non-zero and writes nothing on stdout', async (t) => {
  const res = await runCli(['store', 'list', '--org', 'org_nope', '--json'])
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, /Organization not found/)
})

t.test('key create makes a key that works once, with the role and scopes asked for, audited as the CLI', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await runCli([
    'key',
    'create',
    '--org',
    tenant.orgId,
    '--name',
    'Recovered',
    '--role',
    'viewer',
    '--scope',
    'reviews:read',
    '--json'
  ])
  t.equal(res.code, 0, res.stderr)
  const { apiKey } = onlyJson(res.stdout) as { apiKey: { id: string, secret: string, role: string, scopes: string[] } }
  t.match(apiKey, { role: 'viewer', scopes: ['reviews:read'], secret: /^svc_/ })
  t.equal((await call(app, { method: 'GET', url: '/v1/reviews', key: apiKey.secret, store: tenant.storeId })).statusCode, 200)
  t.equal(
    (await call(app, { method: 'GET', url: '/v1/products', key: apiKey.secret, store: tenant.storeId })).json().code,
    'insufficient_scope'
  )
  const audit = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'api_key.created', subject: `api_key:${apiKey.id}` })
    .first()
  t.equal(audit?.actor, 'cli')
})

t.test('key create refuses an owner key and an unknown scope', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const owner = await runCli(['key', 'create', '--org', tenant.orgId, '--name', 'x', '--role', 'owner', '--json'])
  t.not(owner.code, 0)
  t.match(owner.stderr, /role is admin, editor, viewer/)
  const scope = await runCli(['key', 'create', '--org', tenant.orgId, '--name', 'x', '--role', 'viewer', '--scope', 'everything', '--json'])
  t.not(scope.code, 0)
  t.match(scope.stderr, /Unknown scope: everything/)
})

t.test('owner reset-password gives a new password that signs in, ends the owner\'s sessions, and the old one stops working', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const person = await app.db('people').where({ email: tenant.owner.email }).first()
  await app.db('person_sessions').insert({
    id_hash: 'a'.repeat(64),
    person_id: person.id,
    org_id: tenant.orgId,
    store_env_id: null,
    created_at: Date.now(),
    expires_at: Date.now() + 3600_000
  })
  const res = await runCli(['owner', 'reset-password', '--email', tenant.owner.email, '--json'])
  t.equal(res.code, 0, res.stderr)
  const out = onlyJson(res.stdout) as { person: { email: string, password: string } }
  t.equal(out.person.email, tenant.owner.email)
  t.not(out.person.password, tenant.owner.password)
  const hashNow = (await app.db('people').where({ id: person.id }).first()).password_hash
  t.equal(await app.hash.verify(hashNow, out.person.password), true)
  t.equal(await app.hash.verify(hashNow, tenant.owner.password), false)
  t.equal((await app.db('person_sessions').where({ person_id: person.id })).length, 0)
  const audit = await app.db('audit_log').where({ org_id: tenant.orgId, action: 'person.password_reset' }).first()
  t.match(audit, { actor: 'cli', subject: `person:${person.id}` })
})

t.test('owner reset-password for someone who owns nothing is not found', async (t) => {
  const res = await runCli(['owner', 'reset-password', '--email', 'nobody@example.test', '--json'])
  t.not(res.code, 0)
  t.match(res.stderr, /Owner nobody@example.test not found/)
})

t.test('the CLI says on stderr which database it acts on, without a password', async (t) => {
  const res = await runCli(['org', 'list', '--json'])
  t.match(res.stderr, onMysql ? /^database: mysql:\/\// : /^database: embedded SQLite file /)
  t.notMatch(res.stderr, /:[^@/]+@.*\*\*\*|secret/)
})

t.test('without DATABASE_URL, beside a service noted as running on MySQL, the CLI refuses the embedded file unless --embedded', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'eh-cli-'))
  writeFileSync(join(dataDir, 'database-in-use.json'), JSON.stringify({ database: 'mysql://root:***@db.internal:3306/prod' }))
  const config = testConfig({ databaseUrl: undefined, redisUrl: undefined, dataDir })
  const io = () => {
    const out = { stdout: '', stderr: '' }
    return {
      out,
      io: {
        config,
        stdout: {
          write: (s: string) => {
            out.stdout += s
          }
        },
        stderr: {
          write: (s: string) => {
            out.stderr += s
          }
        }
      }
    }
  }
  const refused = io()
  t.equal(await runInProcess(['org', 'list', '--json'], refused.io), 1)
  t.equal(refused.out.stdout, '')
  t.match(refused.out.stderr, /runs on mysql:\/\/root:\*\*\*@db\.internal:3306\/prod .*DATABASE_URL.*--embedded/)
  const allowed = io()
  t.equal(await runInProcess(['org', 'list', '--json', '--embedded'], allowed.io), 0, allowed.out.stderr)
  t.same(JSON.parse(allowed.out.stdout), { organizations: [] })
})

t.test('npx evidence-hub … --json prints nothing but the JSON on stdout', async (t) => {
  const res = await spawnCli(['org', 'list', '--json'], { entry: ['bin/evidence-hub.js'] })
  t.equal(res.code, 0, res.stderr)
  t.doesNotThrow(() => JSON.parse(res.stdout))
  t.equal(res.stdout.trim().split('\n').length, 1)
})

t.test('oauth-client create --org registers a client the organization sees as its own; without --org it is the operator\'s, seen by all', async (t) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const owned = await runCli([
    'oauth-client',
    'create',
    '--name',
    'Make',
    '--redirect-uri',
    'https://make.example/return',
    '--org',
    tenant.orgId,
    '--json'
  ])
  t.equal(owned.code, 0, owned.stderr)
  const operator = await runCli(['oauth-client', 'create', '--name', 'n8n', '--redirect-uri', 'https://n8n.example/return', '--json'])
  t.equal(operator.code, 0, operator.stderr)
  const list = (await call(app, { method: 'GET', url: '/v1/connectors/oauth-clients?limit=100', key: tenant.key, store: tenant.storeId }))
    .json()
  const byId = new Map(list.data.map((c: { id: string, registeredBy: string }) => [c.id, c.registeredBy]))
  t.equal(byId.get((onlyJson(owned.stdout) as { clientId: string }).clientId), 'organization')
  t.equal(byId.get((onlyJson(operator.stdout) as { clientId: string }).clientId), 'operator')
  const unknown = await runCli([
    'oauth-client',
    'create',
    '--name',
    'x',
    '--redirect-uri',
    'https://x.example/r',
    '--org',
    'org_nope',
    '--json'
  ])
  t.not(unknown.code, 0)
  t.match(unknown.stderr, /organization org_nope not found/)
})
