import t, { type Test } from 'tap'
import { base62 } from '../../src/lib/ids.js'
import { build, type BuildOptions } from '../helper.js'
import { makeTenant } from '../factories.js'
import { countingProbe, gate, keyed, review } from './support.js'

/**
 * Two instances as a deployment runs them: each with its own connections to the same database and the same Redis
 * namespace (on the embedded default, two apps on the same database file).
 */
async function twoInstances (t: Test, routes?: BuildOptions['routes']) {
  const redisPrefix = `eh:test:${base62(10)}:`
  return Promise.all([build(t, { redisPrefix, routes }), build(t, { redisPrefix, routes })])
}

t.test('the answer one instance gave is replayed by the other, and the import runs once', async (t) => {
  const [a, b] = await twoInstances(t)
  const tenant = await makeTenant(a)
  const body = { type: 'reviews', items: [review(1)] }
  const first = await keyed(a, tenant, 'POST', '/v1/imports', body, 'across-1')
  const again = await keyed(b, tenant, 'POST', '/v1/imports', body, 'across-1')
  t.equal(first.statusCode, 201)
  t.equal(again.statusCode, 201)
  t.equal(again.body, first.body)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal((await keyed(b, tenant, 'GET', '/v1/imports')).json().meta.total, 1)
})

t.test('a repeat on the other instance while the first still runs is 409 idempotency_key_in_progress', async (t) => {
  const hold = gate()
  const probe = countingProbe({ hold })
  const [a, b] = await twoInstances(t, probe.routes)
  const tenant = await makeTenant(a)
  const first = keyed(a, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'across-2')
  await probe.state.entered.opened
  const during = await keyed(b, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'across-2')
  hold.open()
  t.equal(during.statusCode, 409)
  t.equal(during.json().code, 'idempotency_key_in_progress')
  t.equal((await first).statusCode, 201)
  t.same((await keyed(b, tenant, 'POST', '/v1/reviews/probe', { n: 1 }, 'across-2')).json(), { run: 1 })
  t.equal(probe.state.runs, 1)
})

t.test('the other instance refuses the key with another body', async (t) => {
  const [a, b] = await twoInstances(t)
  const tenant = await makeTenant(a)
  await keyed(a, tenant, 'POST', '/v1/imports', { type: 'reviews', items: [review(1)] }, 'across-3')
  const other = await keyed(b, tenant, 'POST', '/v1/imports', { type: 'reviews', items: [review(2)] }, 'across-3')
  t.equal(other.statusCode, 400)
  t.equal(other.json().code, 'idempotency_key_reused')
})
