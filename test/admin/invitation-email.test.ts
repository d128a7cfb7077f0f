import t from 'tap'
import { build } from '../helper.js'
import { signedInOwner } from './agent.js'
import { smtpReceiver } from '../smtp.js'

t.test('with SMTP_URL set, the invitation link is emailed and not shown on the page', async (t) => {
  const smtp = await smtpReceiver(t)
  const app = await build(t, { config: { smtpUrl: smtp.url } })
  const { agent } = await signedInOwner(app)
  await agent.get('/admin/members')
  await agent.post('/admin/members/invite', { email: 'mailed@example.test', role: 'editor' })
  const page = await agent.get('/admin/members')
  t.match(page.body, 'Invitation emailed to mailed@example.test')
  t.notMatch(page.body, '/admin/invitations/')
  t.equal(smtp.messages.length, 1)
  const message = smtp.messages[0].replace(/=\r\n/g, '')
  t.match(message, /To: mailed@example\.test/)
  const link = /http:\/\/127\.0\.0\.1:3000(\/admin\/invitations\/[0-9A-Za-z]{40})/.exec(message)
  t.ok(link, 'the email carries the one-time link')
  t.equal((await agent.get(link![1])).statusCode, 200, 'and the link opens the accept page')
})
