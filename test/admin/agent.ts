import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { addMember, makeTenant, type Tenant } from '../factories.js'
import { sharedApp } from '../helper.js'

/**
 * A browser-like client over app.inject for the admin pages: it keeps cookies, reads the CSRF token of the
 * last page, and sends forms url-encoded. Browser tests drive real Chromium instead (browser.test.ts).
 */
export class Agent {
  cookies = new Map<string, string>()
  csrf = ''

  constructor (private readonly app: FastifyInstance) {}

  private remember (res: LightMyRequestResponse) {
    for (const cookie of res.cookies as Array<{ name: string, value: string, maxAge?: number, expires?: Date }>) {
      const gone = cookie.value === '' || cookie.maxAge === 0 || (cookie.expires && cookie.expires.getTime() < Date.now())
      if (gone) this.cookies.delete(cookie.name)
      else this.cookies.set(cookie.name, cookie.value)
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)
    if (token) this.csrf = token[1]
    return res
  }

  private cookieHeader () {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  async get (url: string) {
    return this.remember(await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() } }))
  }

  /** Posts a form; the page's CSRF token is added unless the test passes its own `_csrf`. */
  async post (url: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) {
    const payload = new URLSearchParams({ _csrf: this.csrf, ...form }).toString()
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        payload,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader(), ...headers }
      })
    )
  }

  async signIn (email: string, password: string) {
    await this.get('/admin/login')
    const res = await this.post('/admin/login', { email, password })
    if (res.statusCode !== 303) throw new Error(`sign-in failed with ${res.statusCode}`)
    return res
  }
}

/** A new member of `tenant` with `role`, signed in. */
export async function signedInMember (app: FastifyInstance, tenant: Tenant, role: 'owner' | 'admin' | 'editor') {
  const member = await addMember(app, tenant, role)
  const agent = new Agent(app)
  await agent.signIn(member.email, member.password)
  return { agent, member }
}

/** A fresh tenant and its owner, signed in. */
export async function signedInOwner (app: FastifyInstance) {
  const tenant = await makeTenant(app)
  const agent = new Agent(app)
  await agent.signIn(tenant.owner.email, tenant.owner.password)
  return { tenant, agent }
}

/**
 * A client organization that granted the signed-in owner's agency a partner role, both signed in. The agency's
 * owner then acts in the client's stores with the lesser of owner and `role`.
 */
export async function partnerGranted (role: 'admin' | 'editor' | 'viewer') {
  const app = await sharedApp()
  const client = await makeTenant(app)
  const { tenant: agency, agent: partner } = await signedInOwner(app)
  const clientOwner = new Agent(app)
  await clientOwner.signIn(client.owner.email, client.owner.password)
  await clientOwner.get('/admin/partners')
  await clientOwner.post('/admin/partners', { partnerOrgId: agency.orgId, role })
  return { app, client, agency, partner, clientOwner }
}

/** The partner of partnerGranted, switched to the client's store. */
export async function partnerInClientStore (role: 'admin' | 'editor' | 'viewer') {
  const granted = await partnerGranted(role)
  await granted.partner.get('/admin/stores')
  const switched = await granted.partner.post('/admin/stores/select', { store: granted.client.storeId })
  if (switched.statusCode !== 303) throw new Error(`switching to the client store failed with ${switched.statusCode}`)
  return granted
}
