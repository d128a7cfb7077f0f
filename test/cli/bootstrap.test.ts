import t from 'tap'
import { build, costOf } from '../helper.js'
import { sha256 } from '../../src/lib/secrets.js'
import { base62 } from '../../src/lib/ids.js'
import { onlyJson, runCli, spawnCli } from './run-cli.js'

// The other CLI tests run the command in-process; these two run the real `npm run cli` process, whose exit code
// and streams are the contract scripts rely on.
t.test('the CLI process: bootstrap --json prints one object with the organization, store, owner and an admin key, and exits 0', async (t) => {
  const app = await build(t)
  const owner = `ops-${base62(8).toLowerCase()}@example.test`
  const res = await spawnCli([
    'bootstrap',
    '--org',
    'Acme',
    '--store',
    'Acme EU',
    '--owner',
    owner,
    '--plan',
    'pro',
    '--origin',
    'https://acme.example',
    '--json'
  ])
  t.equal(res.code, 0, res.stderr)
  const out = onlyJson(res.stdout)
  t.match(out, {
    organization: { id: /^org_/ },
    store: { id: /^env_/ },
    owner: { email: owner, password: /^[0-9A-Za-z]{20}$/ },
    apiKey: { id: /^key_/, secret: /^svc_[0-9A-Za-z]{40}$/ }
  })
  const { organization, store, apiKey } = out as {
    organization: { id: string }
    store: { id: string }
    apiKey: { id: string, secret: string }
  }
  const storeRow = await app.db('store_envs').where({ id: store.id }).first()
  t.equal(storeRow.org_id, organization.id)
  t.equal(storeRow.plan, 'pro')
  t.same(JSON.parse(storeRow.allowed_origins), ['https://acme.example'])
  const keyRow = await app.db('api_keys').where({ id: apiKey.id }).first()
  t.equal(keyRow.role, 'admin')
  t.equal(keyRow.secret_hash, sha256(apiKey.secret))
  const ownerRow = await app.db('people').where({ email: owner }).first()
  t.same(costOf(ownerRow.password_hash), { type: 'argon2id', m: 65536, t: 3, p: 4 }, 'the CLI hashes at the production cost')
})

t.test('the CLI process: bootstrap without --owner exits non-zero with the reason on stderr and nothing on stdout', async (t) => {
  const res = await spawnCli(['bootstrap', '--org', 'Acme', '--store', 'Main', '--json'])
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, /--owner is required/)
})

t.test('an unknown option exits non-zero with a message on stderr', async (t) => {
  const res = await runCli(['bootstrap', '--org', 'Acme', '--store', 'Main', '--owner', 'a@b.test', '--colour', 'red', '--json'])
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, /colour/)
})

t.test('an unknown command exits non-zero and prints the usage on stderr', async (t) => {
  const res = await runCli(['frobnicate', '--json'])
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, /Usage: npx evidence-hub <command>/)
})
