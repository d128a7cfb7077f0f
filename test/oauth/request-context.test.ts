import t from 'tap'
import * as oidc from 'openid-client'
import { contextTracking, providerRequest, providerRequestEnded, providerRequestStarted } from '../../oauth/request-context.js'
import { connected, serve } from './oauth-helper.js'

/**
 * Whether AsyncLocalStorage runs on async hooks, whose cost oauth/request-context.ts switches off between provider
 * requests. From Node 24 it runs on AsyncContextFrame: no hook to switch off, and no `enabled` state to read.
 */
const ON_ASYNC_HOOKS = Number(process.versions.node.split('.')[0]) < 24

/** The response's `close` runs just after the client has the answer: give it a moment, at most a second. */
async function trackingOnceSettled (): Promise<boolean> {
  for (let i = 0; i < 100 && contextTracking(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  return contextTracking()
}

t.test('once an /oauth request is answered, no async context is tracked, so REST requests pay no async hook', {
  skip: !ON_ASYNC_HOOKS && 'AsyncLocalStorage installs no async hook on this Node'
}, async (t) => {
  const { base } = await serve(t)
  const res = await fetch(`${base}/oauth/.well-known/openid-configuration`)
  t.equal(res.status, 200)
  await res.text()
  t.equal(await trackingOnceSettled(), false)
})

t.test('refresh grants sent together all succeed, and tracking stops after the last of them', async (t) => {
  const chains = await Promise.all([0, 1, 2, 3].map(() => connected(t)))
  const refreshed = await Promise.all(chains.map(({ config, tokens }) => oidc.refreshTokenGrant(config, tokens.refresh_token!)))
  t.equal(refreshed.filter((r) => r.access_token && r.refresh_token).length, 4)
  if (ON_ASYNC_HOOKS) t.equal(await trackingOnceSettled(), false)
})

t.test('a provider request that ends while another is in flight leaves the other its context', async (t) => {
  providerRequestStarted()
  providerRequestStarted()
  const ctx = {}
  providerRequest.run(ctx, () => {})
  providerRequestEnded()
  if (ON_ASYNC_HOOKS) t.equal(contextTracking(), true, 'still tracked for the request in flight')
  await providerRequest.run(ctx, async () => {
    await new Promise((resolve) => setImmediate(resolve))
    t.equal(providerRequest.getStore(), ctx, 'its store survives an await')
  })
  providerRequestEnded()
  if (ON_ASYNC_HOOKS) t.equal(contextTracking(), false)
})
