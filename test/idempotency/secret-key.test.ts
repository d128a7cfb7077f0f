import t from 'tap'
import { build } from '../helper.js'
import { makeTenant } from '../factories.js'
import { idempotencyService } from '../../src/modules/idempotency/idempotency.service.js'
import { keyed, review } from './support.js'

t.test('an answer kept under another SECRET_KEY is forgotten like an expired one: the request runs again, never a 500', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const body = { type: 'reviews', items: [review(1)] }
  t.equal((await keyed(app, tenant, 'POST', '/v1/imports', body, 'rotated-1')).statusCode, 201)
  // The same rows, read by a service sealing with the key a deployment rotated to.
  const rotated = idempotencyService({ repo: app.services.idempotencyRepo, clock: () => Date.now(), secretKey: 'x'.repeat(64) })
  const { fingerprint } = await app.db('idempotency_keys').where({ org_id: tenant.orgId }).first('fingerprint')
  const outcome = await rotated.begin(tenant.orgId, 'rotated-1', fingerprint)
  t.equal(outcome.kind, 'claimed', 'the unreadable answer is dropped and the key claimed afresh')
})
