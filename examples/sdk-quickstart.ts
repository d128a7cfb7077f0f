/**
 * From a typed call to a verified webhook with the SDK (sdk/README.md). Start the service so that it may deliver
 * to this machine, then run this with the key and store it printed on first start, and the same PORT (or EH_URL,
 * the URL it printed) if it does not listen on 3000:
 *   WEBHOOK_ALLOW_PRIVATE=true npm start
 *   EH_API_KEY=svc_… EH_STORE=env_… node --import tsx examples/sdk-quickstart.ts
 * The webhook it registers is deleted again whatever happens, Ctrl-C included.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ApiError, createClient, eventCursor, isNetworkError, paginate, unwrap, verifyWebhook } from '@evidence-hub/sdk'

const apiKey = process.env.EH_API_KEY
const storeEnvId = process.env.EH_STORE
if (!apiKey || !storeEnvId) {
  console.error('Set EH_API_KEY (svc_…) and EH_STORE (env_…): npm start prints both on first start')
  process.exit(1)
}
/** Where the service listens: EH_URL as it printed it, else the HOST and PORT it reads, else its default. */
const baseUrl = process.env.EH_URL ?? `http://${process.env.HOST ?? '127.0.0.1'}:${process.env.PORT ?? 3000}`
// 429s and 503s are retried after their Retry-After, so reading a large store stays within its rate limit.
const api = createClient({ baseUrl, apiKey, storeEnvId })
console.log(`using ${baseUrl}`)

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

/** Rejects on Ctrl-C, so that the webhook is deleted before the process ends. */
const interrupted = new Promise<never>((_resolve, reject) => process.once('SIGINT', () => reject(new Error('interrupted'))))
interrupted.catch(() => {}) // handled where it is raced; a Ctrl-C before then is seen there

/** Rejects after `ms`. */
function deadline (ms: number, message: string): Promise<never> {
  return new Promise<never>((_resolve, reject) => { setTimeout(() => reject(new Error(message)), ms).unref() })
}

async function tour (): Promise<void> {
  const sku = `sdk-${Date.now()}`
  const upsert = unwrap(await api.PUT('/v1/products', { body: { products: [{ platformProductId: sku, title: 'SDK quick start' }] } }))
  console.log(`upserted ${upsert.upserted}, failed ${upsert.failed}`)

  // paginate reads page after page; stop whenever you have what you need.
  let shown = 0
  for await (const product of paginate(api, '/v1/products', { limit: 100 })) {
    console.log(`product ${product.platformProductId}: ${product.title}`)
    if (++shown === 5) break
  }

  // The whole event log, oldest first, 500 a request: keep the last id to read on from there next time.
  let last: string | undefined
  let count = 0
  for await (const event of eventCursor(api, { limit: 500 })) {
    last = event.id
    count++
  }
  console.log(`${count} events, the last ${last} (pass it as since to read on from there)`)

  const { error } = await api.GET('/v1/reviews', { params: { query: { limit: 0 } } })
  console.log(`a bad call answers { message, code }: ${error?.code}`)

  const type = await Promise.race([
    verified,
    deadline(30_000, 'no delivery within 30 s: was the service started with WEBHOOK_ALLOW_PRIVATE=true?')
  ])
  console.log(`verified a signed ${type} delivery`)
}

await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
try {
  const hook = unwrap(await api.POST('/v1/outbound-webhooks', { body: { url, events: ['product.upserted'] } }))
  secret = hook.secret
  try {
    await Promise.race([tour(), interrupted])
  } finally {
    await api.DELETE('/v1/outbound-webhooks/{id}', { params: { path: { id: hook.id } } }).then(
      ({ response }) => console.log(response.ok ? `deleted webhook ${hook.id}` : `could not delete webhook ${hook.id}: HTTP ${response.status}`),
      (err: Error) => console.error(`could not delete webhook ${hook.id}: ${err.message}`)
    )
  }
} catch (err) {
  if (err instanceof ApiError) console.error(`failed: ${err.status} ${err.code}: ${err.message}`)
  else if (isNetworkError(err)) console.error(`failed: no answer from ${baseUrl} (${(err as Error).message}): is the service running there?`)
  else console.error(`failed: ${(err as Error).message}`)
  process.exitCode = 1
} finally {
  receiver.close()
}
// A call of the tour still pending after Ctrl-C must not keep the process alive.
process.exit()
