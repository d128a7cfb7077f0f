/**
 * From a typed call to a verified webhook with the SDK (sdk/README.md). Start the service so that it may deliver
 * to this machine, then run this with the key and store it printed on first start:
 *   WEBHOOK_ALLOW_PRIVATE=true npm start
 *   EH_API_KEY=svc_… EH_STORE=env_… node --import tsx examples/sdk-quickstart.ts
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createClient, eventCursor, paginate, unwrap, verifyWebhook } from '@evidence-hub/sdk'

const apiKey = process.env.EH_API_KEY
const storeEnvId = process.env.EH_STORE
if (!apiKey || !storeEnvId) throw new Error('Set EH_API_KEY (svc_…) and EH_STORE (env_…): npm start prints both on first start')
const api = createClient({ baseUrl: process.env.EH_URL ?? 'http://127.0.0.1:3000', apiKey, storeEnvId })

// A receiver on this machine: each delivery is verified on its raw bytes before anything else is done with it.
let secret = ''
let delivered: (type: string) => void = () => {}
const verified = new Promise<string>((resolve) => { delivered = resolve })
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    const payload = Buffer.concat(chunks)
    const result = verifyWebhook({ payload, headers: req.headers, secret })
    res.writeHead(result.ok ? 204 : 400).end()
    if (result.ok) delivered(JSON.parse(payload.toString('utf8')).type)
    else console.log(`refused a delivery: ${result.reason}`)
  })
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

const hook = unwrap(await api.POST('/v1/outbound-webhooks', { body: { url, events: ['product.upserted'] } }))
secret = hook.secret
const sku = `sdk-${Date.now()}`
const upsert = unwrap(await api.PUT('/v1/products', { body: { products: [{ platformProductId: sku, title: 'SDK quick start' }] } }))
console.log(`upserted ${upsert.upserted}, failed ${upsert.failed}`)

for await (const product of paginate(api, '/v1/products', { limit: 100 })) {
  console.log(`product ${product.platformProductId}: ${product.title}`)
}
let last: string | undefined
for await (const event of eventCursor(api)) last = event.id
console.log(`last event: ${last} (pass it as since to read on from there)`)

const { error } = await api.GET('/v1/reviews', { params: { query: { limit: 0 } } })
console.log(`a bad call answers { message, code }: ${error?.code}`)

const timeout = new Promise<never>((_resolve, reject) => {
  setTimeout(() => reject(new Error('no delivery within 30 s: was the service started with WEBHOOK_ALLOW_PRIVATE=true?')), 30_000).unref()
})
const type = await Promise.race([verified, timeout])
console.log(`verified a signed ${type} delivery`)
unwrap(await api.DELETE('/v1/outbound-webhooks/{id}', { params: { path: { id: hook.id } } }))
receiver.close()
