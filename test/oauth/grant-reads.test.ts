import t, { type Test } from 'tap'
import { sha256 } from '../../src/lib/secrets.js'
import { call, manualClock, onMysql, probeRoutes } from '../helper.js'
import { makeTenant } from '../factories.js'
import { connect, makeClient, serve } from './oauth-helper.js'

/**
 * An OAuth token's grant is read again when its credential is loaded: on first use, when a marker moved, and past
 * the backstop age (pipeline/credential-cache.ts). Reads falling due together share one query, as API keys' do.
 */

const probe = (app: Parameters<typeof call>[0], key: string, store: string) =>
  call(app, { method: 'GET', url: '/v1/reviews/probe', key, store })
const grantIdOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).grant_id as string

/** An app on a manual clock with `count` connections of its owner, each token served once. */
async function heldTokens (t: Test, count: number) {
  const clock = manualClock()
  const { app, base } = await serve(t, { clock, routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const client = await makeClient(app)
  const tokens: string[] = []
  for (let i = 0; i < count; i++) {
    const { tokens: issued } = await connect({
      base,
      client,
      person: tenant.owner,
      org: tenant.orgId,
      stores: [tenant.storeId],
      role: 'viewer'
    })
    tokens.push(issued.access_token)
    t.equal((await probe(app, issued.access_token, tenant.storeId)).statusCode, 200)
  }
  return { clock, app, tenant, tokens }
}

/** The provider's Grant rows a query reads: each grant's id hash is bound in it. */
function grantReads (app: Awaited<ReturnType<typeof heldTokens>>['app'], hashes: Set<string>) {
  const reads: string[][] = []
  const listen = (query: { sql: string, bindings?: unknown[] }) => {
    if (!/from `oidc_models` as `m`/.test(query.sql)) return
    reads.push((query.bindings ?? []).filter((value): value is string => typeof value === 'string' && hashes.has(value)))
  }
  app.db.on('query', listen)
  return { reads, stop: () => { app.db.off('query', listen) } }
}

t.test('grants past their backstop age together are read again in shared queries, each token still served meanwhile', {
  skip: onMysql ? false : 'nothing is kept without Redis'
}, async (t) => {
  const { clock, app, tenant, tokens } = await heldTokens(t, 8)
  const hashes = new Set(tokens.map((token) => sha256(grantIdOf(token))))
  clock.advance(61_000)
  const { reads, stop } = grantReads(app, hashes)
  t.teardown(stop)
  const answers = await Promise.all(tokens.map((token) => probe(app, token, tenant.storeId)))
  t.same(answers.map((res) => res.statusCode), Array(tokens.length).fill(200))
  await app.credentialCache.settled()
  t.same(new Set(reads.flat()), hashes, 'every grant read again')
  t.ok(reads.length < tokens.length / 2, `in a few queries (${reads.length}), not one per grant`)
})

t.test('a grant revoked without a marker update is refused once a shared backstop read has seen it', {
  skip: onMysql ? false : 'nothing is kept without Redis'
}, async (t) => {
  const { clock, app, tenant, tokens } = await heldTokens(t, 3)
  // A revocation whose marker update was lost (Redis failed past the retries): only the backstop can see it.
  await app.db('oauth_grants').where({ id: grantIdOf(tokens[1]) }).update({ revoked_at: clock() })
  clock.advance(61_000)
  await Promise.all(tokens.map((token) => probe(app, token, tenant.storeId)))
  await app.credentialCache.settled()
  const after = await Promise.all(tokens.map((token) => probe(app, token, tenant.storeId)))
  t.same(after.map((res) => res.statusCode), [200, 401, 200], 'only the revoked grant\'s token is refused')
})

t.test('a grant whose provider row predates carrying its own id is read on its own and honoured', async (t) => {
  const clock = manualClock()
  const { app, base } = await serve(t, { clock, routes: probeRoutes(['reviews']) })
  const tenant = await makeTenant(app)
  const { tokens } = await connect({
    base,
    client: await makeClient(app),
    person: tenant.owner,
    org: tenant.orgId,
    stores: [tenant.storeId],
    role: 'viewer'
  })
  const grantId = grantIdOf(tokens.access_token)
  t.equal(
    await app.db('oidc_models').where({ model: 'Grant', grant_id: grantId }).update({ grant_id: null }),
    1,
    'the grant\'s row carried its id'
  )
  const { reads, stop } = grantReads(app, new Set([sha256(grantId)]))
  t.teardown(stop)
  t.equal((await probe(app, tokens.access_token, tenant.storeId)).statusCode, 200)
  t.equal(reads.length, 2, 'the shared read, then the grant\'s own')
  await app.db('oauth_grants').where({ id: grantId }).update({ revoked_at: clock() })
  clock.advance(61_000)
  await probe(app, tokens.access_token, tenant.storeId)
  await app.credentialCache.settled()
  t.equal((await probe(app, tokens.access_token, tenant.storeId)).statusCode, 401, 'and refused once revoked')
})
