import { createServer, type Socket } from 'node:net'
import t, { type Test } from 'tap'
import { build } from '../helper.js'
import { signedInOwner } from './agent.js'

/** A minimal SMTP receiver on 127.0.0.1: enough of RFC 5321 for nodemailer to hand over one message. */
async function smtpReceiver (t: Test) {
  const messages: string[] = []
  const server = createServer((socket: Socket) => {
    let data: string | null = null
    let buffer = ''
    socket.write('220 test ESMTP\r\n')
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8')
      let end
      while ((end = data === null ? buffer.indexOf('\r\n') : buffer.indexOf('\r\n.\r\n')) !== -1) {
        if (data !== null) {
          messages.push(buffer.slice(0, end))
          buffer = buffer.slice(end + 5)
          data = null
          socket.write('250 queued\r\n')
          continue
        }
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (/^DATA/i.test(line)) { data = ''; socket.write('354 go ahead\r\n') } else if (/^QUIT/i.test(line)) { socket.end('221 bye\r\n') } else socket.write('250 ok\r\n')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { url: `smtp://127.0.0.1:${address.port}`, messages }
}

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
