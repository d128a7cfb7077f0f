import t from 'tap'
import { build, statementsOf } from '../helper.js'
import { oauthClients } from '../../src/modules/connectors/connections/oauth-clients.repository.js'
import { makeClient } from './oauth-helper.js'

t.test('a client\'s provider metadata is read from the database once per instance', async (t) => {
  const app = await build(t)
  const { id } = await makeClient(app)
  const clients = oauthClients(app.db, app.clock)
  const reads = statementsOf(t, app, /oauth_clients/)
  const first = await clients.metadata(id)
  const second = await clients.metadata(id)
  t.equal(reads.length, 1, reads.join('\n'))
  t.same(second, first, 'the kept metadata is what the database said')
  t.not(second, first, 'each caller gets an object of its own')
})

t.test('an id that named no client is asked again, so a client registered meanwhile (on any instance) is found', async (t) => {
  const app = await build(t)
  const clients = oauthClients(app.db, app.clock)
  const id = 'ocl_registered_later_000'
  t.equal(await clients.metadata(id), undefined)
  await app.db('oauth_clients').insert({
    id,
    org_id: null,
    name: 'Later',
    secret_hash: null,
    redirect_uris: '["http://127.0.0.1:9/cb"]',
    public: true,
    created_by: 'test',
    created_at: app.clock()
  })
  t.equal((await clients.metadata(id))?.client_id, id)
})
