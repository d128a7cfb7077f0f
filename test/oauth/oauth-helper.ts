import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import * as oidc from 'openid-client'
import { build, type BuildOptions } from '../helper.js'
import { oauthClients } from '../../src/modules/connectors/connections/oauth-clients.repository.js'
import { makeTenant, type Tenant } from '../factories.js'
import { Browser, csrfOf, freePort } from './browser.js'

export { Browser, csrfOf, freePort }

export const REDIRECT_URI = 'http://127.0.0.1:9/callback'

/** An app listening on real HTTP whose PUBLIC_URL (and so the issuer) is its own address. */
export async function serve (
  t: Test,
  options: BuildOptions & { port?: number } = {}
): Promise<{ app: FastifyInstance, base: string, port: number }> {
  // The issuer names the port, so it is chosen before the app is built; another process (any outgoing connection
  // takes an ephemeral port) may take it in between, and then a new port is tried.
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? await freePort()
    const base = `http://127.0.0.1:${port}`
    const app = await build(t, { ...options, config: { ...options.config, port, publicUrl: base } })
    try {
      await app.listen({ port, host: '127.0.0.1' })
      return { app, base, port }
    } catch (err) {
      await app.close()
      if ((err as { code?: string }).code !== 'EADDRINUSE' || options.port !== undefined || attempt >= 5) throw err
    }
  }
}

export async function makeClient (app: FastifyInstance, options: { public?: boolean, redirectUris?: string[] } = {}) {
  const created = await oauthClients(app.db, app.clock).create({
    name: 'Automation Platform',
    redirectUris: options.redirectUris ?? [REDIRECT_URI],
    public: options.public
  })
  return { id: created.clientId, secret: created.clientSecret }
}

export async function discover (base: string, client: { id: string, secret: string | null }) {
  const auth = client.secret ? oidc.ClientSecretBasic(client.secret) : oidc.None()
  return oidc.discovery(new URL(`${base}/oauth`), client.id, undefined, auth, { execute: [oidc.allowInsecureRequests] })
}

export interface Dance {
  base: string
  client: { id: string, secret: string | null }
  person: { email: string, password: string }
  org: string
  stores: string[]
  role: string
  scope?: string
  browser?: Browser
  authParams?: Record<string, string>
}

/** The flow up to the page after login (the consent page, or a refusal), driven by openid-client. */
export async function openConsent (d: Omit<Dance, 'org' | 'stores' | 'role'>) {
  const config = await discover(d.base, d.client)
  const verifier = oidc.randomPKCECodeVerifier()
  const state = oidc.randomState()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: d.scope ?? 'reviews:read offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...d.authParams
  })
  const browser = d.browser ?? new Browser()
  let page = await browser.follow(url.href)
  if (page.text.includes('name="password"')) {
    page = await browser.follow(page.url.replace(/\/?$/, '/login'), {
      form: { _csrf: csrfOf(page.text), email: d.person.email, password: d.person.password }
    })
  }
  return { config, verifier, state, browser, page }
}

/** The flow through login and consent, up to the redirect back to the client with a code not yet redeemed. */
export async function authorize (d: Dance) {
  const { config, verifier, state, browser, page } = await openConsent(d)
  if (!page.text.includes('name="stores"')) throw new Error(`expected the consent page, got ${page.status}: ${page.text.slice(0, 300)}`)
  const done = await browser.follow(page.url.replace(/\/?$/, '/consent'), {
    form: { _csrf: csrfOf(page.text), org: d.org, stores: d.stores, role: d.role }
  })
  if (!done.location?.startsWith(REDIRECT_URI)) {
    throw new Error(`expected a redirect to the client, got ${done.status} ${done.location}: ${done.text.slice(0, 300)}`)
  }
  return { config, verifier, state, browser, callback: done.location }
}

/** The whole authorization code + PKCE flow through login and consent, driven by openid-client. */
export async function connect (d: Dance) {
  const { config, verifier, state, browser, callback } = await authorize(d)
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state })
  return { tokens, config, browser, callback, verifier }
}

/** An app on real HTTP, a fresh tenant, a registered client, and a finished connection. */
export async function connected (
  t: Test,
  options: BuildOptions & { role?: string, scope?: string, stores?: (tenant: Tenant) => string[] } = {}
) {
  const { role, scope, stores, ...buildOptions } = options
  const { app, base, port } = await serve(t, buildOptions)
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const flow = await connect({
    base,
    client,
    person: tenant.owner,
    org: tenant.orgId,
    stores: stores ? stores(tenant) : [tenant.storeId],
    role: role ?? 'editor',
    scope
  })
  return { app, base, port, tenant, client, ...flow }
}

/** A raw token endpoint call, to see the standard OAuth error body as a client would. */
export async function tokenRequest (base: string, client: { id: string, secret: string | null }, params: Record<string, string>) {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(client.secret ? { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` } : {})
    },
    body: new URLSearchParams(client.secret ? params : { ...params, client_id: client.id })
  })
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}
