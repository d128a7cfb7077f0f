/**
 * The load generator of bench:oauth's refresh phase, in its own process: CHAINS concurrent chains of refresh-token
 * grants at BASE/oauth/token for DURATION seconds, each grant presenting the token the previous one returned (the
 * provider rotates them, so no generic load generator can follow a chain). Prints one JSON line: grants, failures,
 * grants per second, p50 and p99 in ms.
 */
import { readFileSync } from 'node:fs'

const { BASE, CLIENT_ID, CLIENT_SECRET, TOKENS_FILE } = process.env as Record<string, string>
const CHAINS = Number(process.env.CHAINS ?? 20)
const DURATION = Number(process.env.DURATION ?? 10)
const tokens = readFileSync(TOKENS_FILE, 'utf8').split('\n').filter(Boolean)
const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`
const latencies: number[] = []
let failures = 0
const started = performance.now()
const until = started + DURATION * 1000

await Promise.all(Array.from({ length: CHAINS }, async (_, chain) => {
  let token = tokens[chain]
  while (performance.now() < until) {
    const sent = performance.now()
    const res = await fetch(`${BASE}/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token })
    })
    const body = await res.json() as { refresh_token?: string }
    if (res.status !== 200 || !body.refresh_token) {
      failures++
      console.error(`chain ${chain}: ${res.status} ${JSON.stringify(body)}`)
      return
    }
    latencies.push(performance.now() - sent)
    token = body.refresh_token
  }
}))

const seconds = (performance.now() - started) / 1000
latencies.sort((a, b) => a - b)
const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN) * 10) / 10
console.log(
  JSON.stringify({ grants: latencies.length, failures, perSecond: Math.round(latencies.length / seconds), p50: at(0.5), p99: at(0.99) })
)
