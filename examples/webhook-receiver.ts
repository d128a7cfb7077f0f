/**
 * A minimal receiver that verifies evidence-hub deliveries. First register http://127.0.0.1:4000/webhooks (a local
 * URL needs WEBHOOK_ALLOW_PRIVATE=true on the service); registration answers the secret, shown once. Then run
 *   WEBHOOK_SECRET=whsec_… node --import tsx examples/webhook-receiver.ts
 */
import { createServer } from 'node:http'
import { verifySignature } from '../src/modules/delivery/verify.js'

const secret = process.env.WEBHOOK_SECRET
if (!secret) throw new Error('Set WEBHOOK_SECRET to the whsec_ secret shown when the webhook was created')
const port = Number(process.env.PORT ?? 4000)

createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    const raw = Buffer.concat(chunks) // verify the raw bytes, before JSON.parse
    const result = verifySignature(raw, req.headers['x-service-signature-v2'], secret)
    if (!result.ok) {
      res.writeHead(400).end(result.reason)
      return
    }
    const event = JSON.parse(raw.toString('utf8')) as { id: string, type: string }
    // Deliveries are at least once: de-duplicate on event.id. Ignore types you do not know.
    console.log(`${event.id} ${event.type}`)
    res.writeHead(204).end()
  })
}).listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}/webhooks`))
