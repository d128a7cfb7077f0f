import { createServer, type Socket } from 'node:net'
import type { Test } from 'tap'

/** A minimal SMTP receiver on 127.0.0.1: enough of RFC 5321 for nodemailer to hand over one message. */
export async function smtpReceiver (t: Test) {
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
        if (/^DATA/i.test(line)) {
          data = ''
          socket.write('354 go ahead\r\n')
        } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n')
        else socket.write('250 ok\r\n')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { url: `smtp://127.0.0.1:${address.port}`, messages }
}
