import { createHash, randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import type { BuildOptions } from '../../../test/helper.js'
import { makeTenant } from '../../../test/factories.js'
import { Browser, csrfOf, makeClient, serve } from '../../../test/oauth/oauth-helper.js'
import { App, appTester } from './harness.js'

/** Zapier's callback for a CLI app; the browser stops at it (it leaves the service), so nothing goes to the internet. */
export const ZAPIER_REDIRECT = 'https://zapier.com/dashboard/auth/oauth/return/App123CLIAPI/'

const base64url = (buffer: Buffer) => buffer.toString('base64url')

/**
 * The connection as Zapier makes it: the app's authorize URL (plus the PKCE challenge Zapier adds for
 * `enablePkce`), a real login and consent over HTTP, then the app's getAccessToken with the code. `scope`
 * replaces the scopes the app asks for (a narrower connection).
 */
export async function connectZapier (t: Test, options: BuildOptions & { scope?: string } = {}) {
  const { scope, ...buildOptions } = options
  const { app, base } = await serve(t, buildOptions)
  process.env.EVIDENCE_HUB_URL = base
  const tenant = await makeTenant(app)
  const client = await makeClient(app, { redirectUris: [ZAPIER_REDIRECT] })
  process.env.CLIENT_ID = client.id
  process.env.CLIENT_SECRET = client.secret!

  const state = base64url(randomBytes(16))
  const verifier = base64url(randomBytes(32))
  const authorize = new URL(
    await appTester(App.authentication.oauth2Config.authorizeUrl, { inputData: { state, redirect_uri: ZAPIER_REDIRECT } })
  )
  authorize.searchParams.set('code_challenge', base64url(createHash('sha256').update(verifier).digest()))
  authorize.searchParams.set('code_challenge_method', 'S256')
  if (scope) authorize.searchParams.set('scope', scope)

  const browser = new Browser()
  let page = await browser.follow(authorize.href)
  if (page.text.includes('name="password"')) {
    page = await browser.follow(page.url.replace(/\/?$/, '/login'), {
      form: { _csrf: csrfOf(page.text), email: tenant.owner.email, password: tenant.owner.password }
    })
  }
  const done = await browser.follow(page.url.replace(/\/?$/, '/consent'), {
    form: { _csrf: csrfOf(page.text), org: tenant.orgId, stores: [tenant.storeId], role: 'editor' }
  })
  if (!done.location?.startsWith(ZAPIER_REDIRECT)) {
    throw new Error(`expected Zapier's callback, got ${done.status} ${done.location}: ${done.text.slice(0, 300)}`)
  }
  const callback = new URL(done.location)
  if (callback.searchParams.get('state') !== state) throw new Error('the state did not come back')

  const authData = await appTester(App.authentication.oauth2Config.getAccessToken, {
    inputData: { code: callback.searchParams.get('code'), state, redirect_uri: ZAPIER_REDIRECT, code_verifier: verifier }
  }) as { access_token: string, refresh_token: string, store_env_id: string }
  return { app, base, tenant, client, authData }
}
