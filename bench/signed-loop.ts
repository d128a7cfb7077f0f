/**
 * The anchor of bench:webhooks, in its own process as the worker runs in its own: signed POSTs to the receivers with
 * undici, PER_RECEIVER in flight per receiver, and nothing else (no outbox, claims, limits or attempt log).
 * MODE=backlog sends COUNT as fast as it can and prints {"perSecond"}; MODE=paced sends COUNT at RATE per second,
 * each stamped with x-sent-at for the receivers to time, and prints {"sent"}.
 */
import { Agent, request } from 'undici'
import { signatureHeaders } from '../src/modules/delivery/sign.js'

const urls = JSON.parse(process.env.URLS!) as string[]
const COUNT = Number(process.env.COUNT)
const PER_RECEIVER = Number(process.env.PER_RECEIVER ?? 10)
const RATE = Number(process.env.RATE ?? 200)
const SECRET = 'whsec_benchbenchbenchbenchbenchbench12'
const agent = new Agent({ connections: PER_RECEIVER })

function send (url: string, id: string, i: number) {
  const body = JSON.stringify({
    id,
    type: 'loyalty.referral_reward',
    createdAt: new Date().toISOString(),
    storeEnvId: 'env_bench',
    data: { i }
  })
  const now = Date.now()
  return request(url, {
    method: 'POST',
    body,
    dispatcher: agent,
    headers: {
      'content-type': 'application/json',
      'x-service-event-id': id,
      'x-sent-at': String(now),
      ...signatureHeaders(SECRET, body, now, 'http://127.0.0.1:3000', `dlv_${i}`)
    }
  })
    .then((res) => res.body.dump())
}

if (process.env.MODE === 'backlog') {
  let next = 0
  const started = performance.now()
  const lane = async (receiver: number) => {
    for (let i = next++; i < COUNT; i = next++) await send(urls[(receiver + i) % urls.length], `bare_${i}`, i)
  }
  await Promise.all(Array.from({ length: urls.length * PER_RECEIVER }, (_, k) => lane(k)))
  console.log(JSON.stringify({ perSecond: Math.round(COUNT / ((performance.now() - started) / 1000)) }))
} else {
  const sends: Array<Promise<void>> = []
  const started = Date.now()
  for (let i = 0; i < COUNT; i++) {
    const wait = started + i * (1000 / RATE) - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    sends.push(send(urls[i % urls.length], `paced_${i}`, i))
  }
  await Promise.all(sends)
  console.log(JSON.stringify({ sent: COUNT }))
}
await agent.close()
