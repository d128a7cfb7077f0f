import t, { type Test } from 'tap'
import { connect } from 'node:net'
import { build } from '../helper.js'
import { makeTenant } from '../factories.js'

/**
 * A body over the limit is answered 413 before it has all arrived. Closing the connection then resets it while the
 * client is still sending, and many clients report a broken pipe instead of the answer: the server reads (and
 * drops) the rest of the body first, as nginx's lingering close does.
 */

interface Exchange { answer: string, error?: string, sentAll: boolean }

/** Sends a request with a `size`-byte body as fast as the socket takes it, then reads the whole answer. */
function exchange (
  port: number,
  path: string,
  headers: Record<string, string>,
  size: number,
  start = Buffer.alloc(0),
  end = Buffer.alloc(0)
): Promise<Exchange> {
  return new Promise((resolve) => {
    const result: Exchange = { answer: '', sentAll: false }
    const socket = connect(port, '127.0.0.1')
    const head = [
      `POST ${path} HTTP/1.1`,
      'host: 127.0.0.1',
      `content-length: ${size}`,
      ...Object.entries({ 'content-type': 'application/json', ...headers }).map(([name, value]) => `${name}: ${value}`),
      '',
      ''
    ].join('\r\n')
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      result.answer += chunk
      // The whole answer is in once its JSON body has closed; the client then hangs up, as a browser would not.
      if (result.sentAll && result.answer.endsWith('}')) socket.end()
    })
    socket.on('error', (err: NodeJS.ErrnoException) => {
      result.error = err.code ?? err.message
    })
    socket.on('close', () => resolve(result))
    socket.write(head)
    socket.write(start)
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let wrote = start.length + end.length
    const write = () => {
      while (wrote < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - wrote))
        wrote += piece.length
        if (!socket.write(piece)) return socket.once('drain', write)
      }
      socket.write(end)
      result.sentAll = true
      if (result.answer.endsWith('}')) socket.end()
    }
    write()
  })
}

async function listening (t: Test) {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { app, port: address.port }
}

t.test('a JSON body over 5 MB gets its 413 payload_too_large over a real socket, every time', async (t) => {
  const { app, port } = await listening(t)
  const tenant = await makeTenant(app)
  const headers = { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId }
  for (let i = 1; i <= 5; i++) {
    const result = await exchange(port, '/v1/products', headers, 6 * 1024 * 1024)
    t.equal(result.error, undefined, `try ${i}: no reset while sending`)
    t.ok(result.sentAll, `try ${i}: the whole body went out`)
    t.match(result.answer, /^HTTP\/1\.1 413 /, `try ${i}`)
    t.match(result.answer, /"code":"payload_too_large"/, `try ${i}`)
  }
})

t.test('a multipart image over 10 MB gets its 413 payload_too_large over a real socket, every time', async (t) => {
  const { app, port } = await listening(t)
  const tenant = await makeTenant(app)
  const boundary = '----eh-linger'
  // A PNG signature, so that the upload is read as an image until its size runs over.
  const start = Buffer.concat([
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="image"; filename="big.png"\r\ncontent-type: image/png\r\n\r\n`),
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])
  ])
  const headers = {
    'content-type': `multipart/form-data; boundary=${boundary}`,
    origin: 'https://shop.example',
    'x-store-env-id': tenant.storeId
  }
  for (let i = 1; i <= 3; i++) {
    const result = await exchange(port, '/v1/uploads/image', headers, 11 * 1024 * 1024, start, Buffer.from(`\r\n--${boundary}--\r\n`))
    t.equal(result.error, undefined, `try ${i}: no reset while sending`)
    t.ok(result.sentAll, `try ${i}: the whole body went out`)
    t.match(result.answer, /^HTTP\/1\.1 413 /, `try ${i}`)
    t.match(result.answer, /"code":"payload_too_large"/, `try ${i}`)
  }
})
