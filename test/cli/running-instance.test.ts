import t, { type Test } from 'tap'
import { base62 } from '../../src/lib/ids.js'
import { onMysql, TEST_REDIS_URL } from '../helper.js'
import { makeTenant, type Tenant } from '../factories.js'
import { serve } from '../oauth/oauth-helper.js'
import { onlyJson, spawnCli } from './run-cli.js'

/**
 * The operator's CLI runs as its own process beside a listening instance, as in production: same database, same
 * Redis and key namespace. The instance keeps stores and credentials in memory under markers (lib/freshness.ts);
 * each test first has it serve the request twice, so the second answer comes from memory, then changes something
 * through the CLI and expects the very next request to see it. On the embedded default (no Redis) nothing is kept,
 * and the first test shows the CLI working beside a running instance.
 *
 * bundle-weight: 25 (scripts/test.ts: its seven CLI processes take as long as about 25 ordinary tests)
 */
async function instance (t: Test) {
  const redisPrefix = `eh:test:${base62(10)}:`
  const { app, base } = await serve(t, { redisPrefix })
  const env = onMysql ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: redisPrefix } : {}
  async function cli (args: string[]) {
    const res = await spawnCli([...args, '--json'], { env })
    if (res.code !== 0) throw new Error(`evidence-hub ${args.join(' ')} exited ${res.code}: ${res.stderr}`)
    return onlyJson(res.stdout)
  }
  return { app, base, cli }
}

function api (base: string, tenant: Tenant, path: string, init: { method?: string, body?: unknown } = {}) {
  return fetch(base + path, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${tenant.key}`,
      'x-store-env-id': tenant.storeId,
      ...(init.body ? { 'content-type': 'application/json' } : {})
    },
    body: init.body ? JSON.stringify(init.body) : undefined
  })
}

async function status (res: Promise<Response>): Promise<string> {
  const answer = await res
  const body = await answer.json().catch(() => ({})) as { code?: string }
  return body.code ? `${answer.status} ${body.code}` : String(answer.status)
}

const newWebhook = { url: 'http://127.0.0.1:9/hooks', events: ['*'] }

/** Without Redis an instance keeps nothing between requests: the first test shows the CLI beside one all the same. */
const cachedOnly = onMysql ? {} : { skip: 'the embedded default keeps nothing between requests (no Redis)' }

t.test('store set-plan --status lapsed refuses the store on the running instance\'s next request, and active serves it again', async (t) => {
  const { app, base, cli } = await instance(t)
  const tenant = await makeTenant(app)
  t.equal(await status(api(base, tenant, '/v1/products')), '200')
  t.equal(await status(api(base, tenant, '/v1/products')), '200', 'served from memory the second time')
  await cli(['store', 'set-plan', '--store', tenant.storeId, '--plan', 'growth', '--status', 'lapsed'])
  t.equal(await status(api(base, tenant, '/v1/products')), '403 subscription_expired')
  t.equal(await status(api(base, tenant, '/v1/products')), '403 subscription_expired')
  await cli(['store', 'set-plan', '--store', tenant.storeId, '--plan', 'growth', '--status', 'active'])
  t.equal(await status(api(base, tenant, '/v1/products')), '200', 'the reactivated store is served at once')
})

t.test('store set-plan --plan free refuses new webhooks on the running instance\'s next request', cachedOnly, async (t) => {
  const { app, base, cli } = await instance(t)
  const tenant = await makeTenant(app)
  t.equal(await status(api(base, tenant, '/v1/outbound-webhooks', { method: 'POST', body: newWebhook })), '201')
  t.equal(await status(api(base, tenant, '/v1/outbound-webhooks', { method: 'POST', body: newWebhook })), '201')
  await cli(['store', 'set-plan', '--store', tenant.storeId, '--plan', 'free'])
  t.equal(await status(api(base, tenant, '/v1/outbound-webhooks', { method: 'POST', body: newWebhook })), '403 plan_required')
})

t.test('store set-feature is seen by the running instance\'s next request', cachedOnly, async (t) => {
  const { app, base, cli } = await instance(t)
  const tenant = await makeTenant(app, { plan: 'free' })
  t.equal(await status(api(base, tenant, '/v1/outbound-webhooks', { method: 'POST', body: newWebhook })), '403 plan_required')
  t.equal(await status(api(base, tenant, '/v1/outbound-webhooks', { method: 'POST', body: newWebhook })), '403 plan_required')
  await cli(['store', 'set-feature', '--store', tenant.storeId, '--feature', 'outbound-webhooks', '--enabled'])
  t.equal(await status(api(base, tenant, '/v1/outbound-webhooks', { method: 'POST', body: newWebhook })), '201')
})

t.test(
  'store set-origins is seen by the running instance\'s next storefront call, for a removed and an added origin',
  cachedOnly,
  async (t) => {
    const { app, base, cli } = await instance(t)
    const tenant = await makeTenant(app, { origins: ['https://old.example'] })
    const widget = (origin: string) =>
      status(fetch(`${base}/v1/storefront/summary?productId=p1`, { headers: { origin, 'x-store-env-id': tenant.storeId } }))
    t.equal(await widget('https://old.example'), '200')
    t.equal(await widget('https://old.example'), '200')
    await cli(['store', 'set-origins', '--store', tenant.storeId, '--origin', 'https://new.example'])
    t.equal(await widget('https://old.example'), '403 origin_not_allowed')
    t.equal(await widget('https://new.example'), '200')
  }
)

/** A person signed in to the admin application over HTTP: the session cookie, kept by hand. */
async function signIn (base: string, email: string, password: string): Promise<string | null> {
  const page = await fetch(`${base}/admin/login`)
  const cookies = page.headers.getSetCookie().map((c) => c.split(';')[0])
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
  const res = await fetch(`${base}/admin/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString()
  })
  if (res.status !== 303) return null
  return [...cookies, ...res.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ')
}

const membersPage = async (base: string, cookie: string) =>
  (await fetch(`${base}/admin/members`, { headers: { cookie }, redirect: 'manual' })).status

t.test(
  'owner reset-password signs the owner out on the running instance\'s next request; the new password signs in',
  cachedOnly,
  async (t) => {
    const { app, base, cli } = await instance(t)
    const tenant = await makeTenant(app)
    const session = (await signIn(base, tenant.owner.email, tenant.owner.password))!
    t.equal(await membersPage(base, session), 200)
    t.equal(await membersPage(base, session), 200)
    const out = await cli(['owner', 'reset-password', '--email', tenant.owner.email]) as { person: { password: string } }
    t.equal(await membersPage(base, session), 303, 'sent back to the sign-in page')
    t.equal(await signIn(base, tenant.owner.email, tenant.owner.password), null)
    t.equal(await membersPage(base, (await signIn(base, tenant.owner.email, out.person.password))!), 200)
  }
)

t.test('member add is seen by the running instance\'s next request: the member is listed and can sign in', cachedOnly, async (t) => {
  const { app, base, cli } = await instance(t)
  const tenant = await makeTenant(app)
  const members = async () =>
    ((await (await api(base, tenant, '/v1/account/members')).json()) as { data: Array<{ email: string }> }).data.map((m) => m.email)
  t.same(await members(), [tenant.owner.email])
  const email = `added-${base62(8).toLowerCase()}@example.test`
  const out = await cli(['member', 'add', '--org', tenant.orgId, '--email', email, '--role', 'admin']) as { person: { password: string } }
  t.same(await members(), [tenant.owner.email, email])
  t.equal(await membersPage(base, (await signIn(base, email, out.person.password))!), 200)
})
