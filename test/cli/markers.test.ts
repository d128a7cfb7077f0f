import t, { type Test } from 'tap'
import { marker } from '../../src/lib/freshness.js'
import { base62 } from '../../src/lib/ids.js'
import { build, onMysql, TEST_REDIS_URL } from '../helper.js'
import { makeTenant } from '../factories.js'
import { onlyJson, runCli, spawnCli } from './run-cli.js'

/**
 * What the CLI changes, it tells running instances of through markers in Redis (lib/freshness.ts), under the
 * deployment's REDIS_PREFIX. Markers exist only with Redis, so these run on MySQL + Redis.
 */
const withRedis = onMysql ? {} : { skip: 'markers live in Redis, which the embedded default has none of' }

async function setUp (t: Test) {
  const redisPrefix = `eh:test:${base62(10)}:`
  const app = await build(t, { redisPrefix })
  const tenant = await makeTenant(app)
  const env = { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: redisPrefix }
  const markerOf = async (name: string) => (await app.services.freshness.read([name]))![0]
  return { app, tenant, env, markerOf }
}

t.test('member add moves the person\'s marker', withRedis, async (t) => {
  const { tenant, env, markerOf } = await setUp(t)
  const added = await runCli([
    'member',
    'add',
    '--org',
    tenant.orgId,
    '--email',
    `m-${base62(8).toLowerCase()}@example.test`,
    '--role',
    'editor',
    '--json'
  ], env)
  t.equal(added.code, 0, added.stderr)
  const person = (onlyJson(added.stdout) as { person: { id: string } }).person
  t.not(await markerOf(marker.person(person.id)), '')
})

t.test('owner reset-password moves the owner\'s marker', withRedis, async (t) => {
  const { tenant, env, markerOf } = await setUp(t)
  const before = await markerOf(marker.person(tenant.owner.id))
  const reset = await runCli(['owner', 'reset-password', '--email', tenant.owner.email, '--json'], env)
  t.equal(reset.code, 0, reset.stderr)
  t.not(await markerOf(marker.person(tenant.owner.id)), before)
})

t.test('store set-plan, set-origins and set-feature each move the store\'s marker', withRedis, async (t) => {
  const { tenant, env, markerOf } = await setUp(t)
  const commands = [
    ['store', 'set-plan', '--store', tenant.storeId, '--plan', 'pro'],
    ['store', 'set-origins', '--store', tenant.storeId, '--origin', 'https://other.example'],
    ['store', 'set-feature', '--store', tenant.storeId, '--feature', 'connector-hooks', '--disabled']
  ]
  for (const command of commands) {
    const before = await markerOf(marker.store(tenant.storeId))
    const res = await runCli([...command, '--json'], env)
    t.equal(res.code, 0, res.stderr)
    t.not(await markerOf(marker.store(tenant.storeId)), before, command.join(' '))
  }
})

t.test('with Redis unreachable the CLI still makes the change, says instances see it within a minute, and exits', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const res = await spawnCli(['store', 'set-plan', '--store', tenant.storeId, '--plan', 'pro', '--json'], {
    env: { REDIS_URL: 'redis://127.0.0.1:1' }
  })
  t.equal(res.code, 0, res.stderr)
  t.same(onlyJson(res.stdout), { store: { id: tenant.storeId, plan: 'pro', status: 'active' } })
  t.match(res.stderr, /running instances see it within a minute/)
  t.equal((await app.stores.find(tenant.storeId))!.plan, 'pro')
})
