/**
 * Shared benchmark plumbing: run autocannon against a URL, report requests/s and p99, express every figure as a
 * ratio against a bare fastify route measured in the same run, and record the table in bench/RESULTS.md.
 * Benchmarks are not tests: they assert nothing about time.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import Fastify, { type FastifyInstance } from 'fastify'
import { loadConfig } from '../src/config.js'
import type { Services } from '../src/services.js'
import { sha256 } from '../src/lib/secrets.js'
import { base62, newId } from '../src/lib/ids.js'

export const DURATION = Number(process.env.BENCH_DURATION ?? 10)
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md')

export interface Figure { name: string, rps: number, p50: number, p99: number, errors: number, non2xx: number }

export async function bareServer (): Promise<{ app: FastifyInstance, url: string }> {
  const app = Fastify({ logger: false })
  app.get('/bare', async () => ({ ok: true }))
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url: `${url}/bare` }
}

export async function measure (name: string, options: autocannon.Options): Promise<Figure> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...options })
  const figure = {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx
  }
  console.log(`${name}: ${figure.rps} req/s, p50 ${figure.p50} ms, p99 ${figure.p99} ms, errors ${figure.errors}, non-2xx ${figure.non2xx}`)
  return figure
}

export function table (figures: Figure[], baseline: Figure): string {
  const lines = [
    '| target | req/s | vs bare | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---:|---:|---:|---:|---:|---:|'
  ]
  for (const f of figures) {
    lines.push(`| ${f.name} | ${f.rps} | ${(f.rps / baseline.rps).toFixed(2)} | ${f.p50} | ${f.p99} | ${f.non2xx} | ${f.errors} |`)
  }
  return lines.join('\n')
}

/** Replaces (or appends) the section between `<!-- bench:<key> -->` markers. */
export function record (key: string, title: string, body: string): void {
  const start = `<!-- bench:${key} -->`
  const end = `<!-- /bench:${key} -->`
  const stamp = `Run ${new Date().toISOString()} on ${process.platform}/${process.arch}, Node ${process.version}, ${DURATION} s per target, ${CONNECTIONS} connections.`
  const section = `${start}\n## ${title}\n\n${stamp}\n\n${body}\n${end}`
  const current = existsSync(RESULTS)
    ? readFileSync(RESULTS, 'utf8')
    : '# Benchmark results\n\nEach section is written by its `npm run bench:<name>` script. Ratios compare against a bare fastify route measured in the same run, so they travel between machines better than raw figures.\n'
  const pattern = new RegExp(`${start}[\\s\\S]*?${end}`)
  writeFileSync(RESULTS, pattern.test(current) ? current.replace(pattern, section) : `${current.trimEnd()}\n\n${section}\n`)
  console.log(`\nrecorded in bench/RESULTS.md (${title})`)
}

/** Configuration every bench uses: MySQL + Redis by default, quiet, no background workers. */
export function benchConfig (databaseUrl: string) {
  return loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRET_KEY: process.env.SECRET_KEY ?? 'bench-secret-key-bench-secret-key-0123456789',
    LOG_LEVEL: 'silent',
    WORKERS: 'false'
  })
}

/** A bench tenant with `count` keys of `role`, inserted directly; returns their secrets for rotation. */
export async function seedBenchKeys ({ db, bootstrap }: Pick<Services, 'db' | 'bootstrap'>, count: number, role: 'viewer' | 'editor') {
  const tenant = await bootstrap.bootstrap({ org: 'Bench', store: 'Bench store', owner: `bench-${base62(8).toLowerCase()}@example.test` })
  const secrets: string[] = []
  const rows = []
  for (let i = 0; i < count; i++) {
    const secret = `svc_${base62(40)}`
    secrets.push(secret)
    rows.push({
      id: newId('key'),
      org_id: tenant.organization.id,
      name: `bench ${i}`,
      role,
      scopes: '[]',
      prefix: secret.slice(4, 12),
      secret_hash: sha256(secret),
      created_at: Date.now(),
      first_used_at: Date.now(),
      last_used_at: Date.now()
    })
  }
  for (let i = 0; i < rows.length; i += 500) await db('api_keys').insert(rows.slice(i, i + 500))
  return { tenant, secrets }
}
