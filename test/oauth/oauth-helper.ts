import { createServer } from 'node:net'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import * as oidc from 'openid-client'
import { build, type BuildOptions } from '../helper.js'
import { oauthClients } from '../../src/modules/connectors/connections/oauth-clients.repository.js'
import { makeTenant, type Tenant } from '../factories.js'

export const REDIRECT_URI = 'http://127.0.0.1:9/callback'

export async function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** An app listening on real HTTP whose PUBLIC_URL (and so the issuer) is its own address. */
export async function serve (t: Test, options: BuildOptions & { port?: number } = {}): Promise<{ app: FastifyInstance, base: string, port: number }> {
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
  const created = await oauthClients(app.db, app.clock).create({ name: 'Automation Platform', redirectUris: options.redirectUris ?? [REDIRECT_URI], public: options.public })
  return { id: created.clientId, secret: created.clientSecret }
}

export async function discover (base: string, client: { id: string, secret: string | null }) {
  const auth = client.secret ? oidc.ClientSecretBasic(client.secret) : oidc.None()
  return oidc.discovery(new URL(`${base}/oauth`), client.id, undefined, auth, { execute: [oidc.allowInsecureRequests] })
}

/** A minimal browser: a cookie jar and manual redirects, so a test sees each page of the dance. */
export class Browser {
  cookies = new Map<string, string>()

  async request (url: string, init: { method?: string, form?: Record<string, string | string[]> } = {}) {
    const body = init.form ? new URLSearchParams(Object.entries(init.form).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => [k, x]))).toString() : undefined
    const res = await fetch(url, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {})
      },
      body
    })
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at)
      const value = pair.slice(at + 1)
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const location = res.headers.get('location')
    return { status: res.status, location: location ? new URL(location, url).href : null, text: await res.text() }
  }

  /** Follows redirects on `base`; stops at a page (200/4xx) or at a redirect that leaves it. */
  async follow (url: string, init: { form?: Record<string, string | string[]> } = {}) {
    let res = await this.request(url, init)
    let at = url
    while (res.location && new URL(res.location).origin === new URL(url).origin) {
      at = res.location
      res = await this.request(at)
    }
    return { ...res, url: at }
  }
}

export function csrfOf (html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html)
  if (!match) throw new Error('no CSRF field on the page')
  return match[1]
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
    page = await browser.follow(page.url.replace(/\/?$/, '/login'), { form: { _csrf: csrfOf(page.text), email: d.person.email, password: d.person.password } })
  }
  return { config, verifier, state, browser, page }
}

/** The flow through login and consent, up to the redirect back to the client with a code not yet redeemed. */
export async function authorize (d: Dance) {
  const { config, verifier, state, browser, page } = await openConsent(d)
  if (!page.text.includes('name="stores"')) throw new Error(`expected the consent page, got ${page.status}: ${page.text.slice(0, 300)}`)
  const done = await browser.follow(page.url.replace(/\/?$/, '/consent'), { form: { _csrf: csrfOf(page.text), org: d.org, stores: d.stores, role: d.role } })
  if (!done.location?.startsWith(REDIRECT_URI)) throw new Error(`expected a redirect to the client, got ${done.status} ${done.location}: ${done.text.slice(0, 300)}`)
  return { config, verifier, state, browser, callback: done.location }
}

/** The whole authorization code + PKCE flow through login and consent, driven by openid-client. */
export async function connect (d: Dance) {
  const { config, verifier, state, browser, callback } = await authorize(d)
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state })
  return { tokens, config, browser, callback, verifier }
}

/** An app on real HTTP, a fresh tenant, a registered client, and a finished connection. */
export async function connected (t: Test, options: BuildOptions & { role?: string, scope?: string, stores?: (tenant: Tenant) => string[] } = {}) {
  const { role, scope, stores, ...buildOptions } = options
  const { app, base, port } = await serve(t, buildOptions)
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const flow = await connect({ base, client, person: tenant.owner, org: tenant.orgId, stores: stores ? stores(tenant) : [tenant.storeId], role: role ?? 'editor', scope })
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
