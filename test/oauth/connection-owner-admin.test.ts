import t from 'tap'
import { addMember } from '../factories.js'
import { Agent } from '../admin/agent.js'
import { connected } from './oauth-helper.js'
import { editorConnected, grantOf, stillWorks } from './editor-connection.js'

/* The admin application's connections page follows the API's rule (connection-owner.test.ts): admin or owner for another person's. */

t.test('in the admin application an editor can neither open nor post the revocation of the owner\'s connection', async (t) => {
  const { app, tokens, tenant } = await connected(t)
  const editor = await addMember(app, tenant, 'editor')
  const agent = new Agent(app)
  await agent.signIn(editor.email, editor.password)
  const page = await agent.get('/admin/connections')
  t.notMatch(page.body, `/admin/connections/${grantOf(tokens.access_token)}/revoke`, 'no revoke button on the owner\'s connection')
  t.equal((await agent.get(`/admin/connections/${grantOf(tokens.access_token)}/revoke`)).statusCode, 403)
  t.equal((await agent.post(`/admin/connections/${grantOf(tokens.access_token)}/revoke`)).statusCode, 403)
  t.ok(await stillWorks(app, tenant, tokens.access_token))
})

t.test('in the admin application an editor revokes their own connection', async (t) => {
  const { app, tenant, editor, accessToken } = await editorConnected(t)
  const agent = new Agent(app)
  await agent.signIn(editor.email, editor.password)
  const page = await agent.get('/admin/connections')
  t.match(page.body, `/admin/connections/${grantOf(accessToken)}/revoke`, 'a revoke button on their own connection')
  await agent.get(`/admin/connections/${grantOf(accessToken)}/revoke`)
  t.equal((await agent.post(`/admin/connections/${grantOf(accessToken)}/revoke`)).statusCode, 303)
  t.notOk(await stillWorks(app, tenant, accessToken))
})
