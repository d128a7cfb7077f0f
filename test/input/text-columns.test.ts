import t from 'tap'
import { build, call } from '../helper.js'
import { makeTenant } from '../factories.js'

t.test('an OAuth client with ten redirect URIs of the longest allowed length is stored, listed and audited', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const redirectUris = Array.from({ length: 10 }, (_, i) => `https://app.example/${i}/${'😀'.repeat(1978)}`)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/connectors/oauth-clients',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: '😀'.repeat(200), redirectUris }
  })
  t.equal(res.statusCode, 201)
  t.same(res.json().redirectUris, redirectUris)
  const list = await call(app, { method: 'GET', url: '/v1/connectors/oauth-clients', key: tenant.key, store: tenant.storeId })
  // The list also offers operator clients, which other files register on the same database.
  const listed = list.json().data.find((client: { id: string }) => client.id === res.json().id)
  t.same(listed?.redirectUris, redirectUris)
  const audit = await call(app, {
    method: 'GET',
    url: '/v1/account/audit-log?action=oauth_client.created',
    key: tenant.key,
    store: tenant.storeId
  })
  t.same(audit.json().data[0].details.redirectUris, redirectUris)
})
