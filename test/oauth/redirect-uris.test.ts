import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

const register = async (redirectUri: string) => {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  return call(app, {
    method: 'POST',
    url: '/v1/connectors/oauth-clients',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'Probe', redirectUris: [redirectUri] }
  })
}

t.test('a wildcard redirect URI is refused with 400', async (t) => {
  for (const uri of ['https://*.evil.example/cb', 'https://%2A.evil.example/cb']) {
    const res = await register(uri)
    t.equal(res.statusCode, 400, uri)
    t.match(res.json(), { code: 'invalid_request', message: /wildcard/ })
  }
})

t.test('a redirect URI carrying a user name or password is refused with 400', async (t) => {
  for (const uri of ['https://good.example@evil.example/cb', 'https://user:pw@evil.example/cb', 'https://@evil.example/cb']) {
    const res = await register(uri)
    t.equal(res.statusCode, 400, uri)
    t.match(res.json(), { code: 'invalid_request', message: /user name or password/ })
  }
})

t.test('an exact https redirect URI is still registered', async (t) => {
  t.equal((await register('https://hooks.example/oauth/cb?x=1')).statusCode, 201)
})
