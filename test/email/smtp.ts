import { SMTPServer } from 'smtp-server'
import type { Test } from 'tap'

export interface Received { from: string, to: string[], raw: string }

/** A real SMTP server (smtp-server) on 127.0.0.1 that keeps every message it accepts. */
export async function smtpReceiver (t: Test) {
  const messages: Received[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData (stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8')
        })
        callback()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { url: `smtp://127.0.0.1:${address.port}`, messages }
}

function decodeQuotedPrintable (text: string): string {
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}

function headersOf (block: string): Map<string, string> {
  const headers = new Map<string, string>()
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const at = line.indexOf(':')
    if (at > 0) headers.set(line.slice(0, at).toLowerCase(), line.slice(at + 1).trim())
  }
  return headers
}

function decodeBody (headers: Map<string, string>, body: string): string {
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase()
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body)
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  return body
}

/** The headers of a received message and its text and HTML parts, decoded (enough MIME for nodemailer's output). */
export function parseMail (raw: string) {
  const split = raw.indexOf('\r\n\r\n')
  const headers = headersOf(raw.slice(0, split))
  const body = raw.slice(split + 4)
  const parts: Record<string, string> = {}
  const boundary = /boundary="?([^";]+)"?/.exec(headers.get('content-type') ?? '')?.[1]
  if (boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      const at = chunk.indexOf('\r\n\r\n')
      if (at < 0) continue
      const partHeaders = headersOf(chunk.slice(0, at))
      const type = (partHeaders.get('content-type') ?? '').split(';')[0]
      parts[type] = decodeBody(partHeaders, chunk.slice(at + 4).replace(/\r\n$/, ''))
    }
  } else {
    parts[(headers.get('content-type') ?? 'text/plain').split(';')[0]] = decodeBody(headers, body)
  }
  const lf = (text = '') => text.replace(/\r\n/g, '\n')
  return { headers, text: lf(parts['text/plain']), html: lf(parts['text/html']) }
}
