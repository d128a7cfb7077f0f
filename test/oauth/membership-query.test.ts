import t from 'tap'
import { call, statementsOf } from '../helper.js'
import { connected } from './oauth-helper.js'

t.test('an OAuth-authenticated request checks the person\'s membership in one query, not two', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const membershipQueries = statementsOf(t, app, /\bmemberships\b/)
  const res = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token, store: tenant.storeId })
  t.equal(res.statusCode, 200)
  t.equal(membershipQueries.length, 1, membershipQueries.join('\n'))
})
