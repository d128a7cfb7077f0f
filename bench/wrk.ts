/**
 * What the benches that run the service as its own process share: its database made if missing, processes started
 * until they print that they listen, wrk in its own process with its --latency report read back, and the service's
 * RSS. The load generator never shares a process with what it measures.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { readFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import knex from 'knex'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createKnex, migrateLatest } from '../src/db.js'
import { CONNECTIONS, DURATION } from './lib.js'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** A port nothing listens on now, for a process the bench starts. */
export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Creates the database a `mysql://…/name` URL names, if it is not there. */
export async function ensureDatabase (databaseUrl: string): Promise<void> {
  const server = knex({ client: 'mysql2', connection: { uri: databaseUrl.replace(/\/[^/]*$/, '/') } as never })
  await server.raw(`CREATE DATABASE IF NOT EXISTS \`${new URL(databaseUrl).pathname.slice(1)}\``)
  await server.destroy()
}

/**
 * The settings the service process runs with (MySQL `database` unless DATABASE_URL says otherwise, Redis, no
 * workers, silent logs, plus `extra`) on a random port, and an app in the bench's own process on the same, migrated
 * database for seeding only: the measured service is the separate process startProcess starts.
 */
export async function benchService (database: string, extra: Record<string, string> = {}) {
  const port = 5000 + Math.floor(Math.random() * 2000)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: process.env.DATABASE_URL ?? `mysql://root@127.0.0.1:3306/${database}`,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRET_KEY: process.env.SECRET_KEY ?? 'bench-secret-key-bench-secret-key-0123456789',
    LOG_LEVEL: 'silent',
    WORKERS: 'false',
    ...extra
  }
  const config = loadConfig(env)
  await ensureDatabase(config.databaseUrl!)
  const db = createKnex(config)
  await migrateLatest(db)
  const app = await buildApp(config, { db, logger: false })
  await app.ready()
  return { port, env, config, db, app }
}

/** `node args…` from the project's root with `env`, resolved once its output matches `ready`. */
export function startProcess (args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let seen = ''
    child.stdout!.on('data', (chunk: Buffer) => { seen += chunk.toString(); if (ready.test(seen)) resolve(child) })
    child.stderr!.on('data', (chunk: Buffer) => { seen += chunk.toString() })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${seen.slice(-2000)}`)))
  })
}

/** The node flags package.json's `start` or `worker` script runs the compiled entry point with. */
export function nodeFlagsOf (script: 'start' | 'worker'): string[] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  const flags = /exec node (.*?) ?dist\/src\/\w+\.js/.exec(scripts[script])
  if (!flags) throw new Error(`package.json's ${script} script does not exec node on dist/src`)
  return flags[1].split(' ').filter(Boolean)
}

/**
 * Builds and starts the service as `npm start` runs it (compiled, no TypeScript loader). BENCH_CPU_PROF=<dir> adds
 * --cpu-prof, so a run can say where the service's time went (the profile is written when it exits on SIGTERM).
 */
export function startCompiledService (env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' })
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []
  return startProcess([...profile, ...nodeFlagsOf('start'), 'dist/src/server.js'], env, /is listening/)
}

export function rssMb (pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))
  return Math.round(Number(line?.replace(/\D+/g, '') ?? 0) / 1024)
}

/** The process's CPU time so far (user + system), in µs: /proc counts clock ticks, 100 per second on Linux. */
export function cpuMicros (pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

/**
 * GET `path` once with each of `credentials` (Bearer, 50 at a time) from this process, so every credential is
 * resolved before anything is measured. A timed wrk warm-up did not reach every one on a slow machine (first uses of
 * OAuth tokens run ~1,000/s), and the first measured target then paid for the rest. Not measured.
 */
export async function warmUp (port: number, path: string, storeId: string, credentials: string[]): Promise<void> {
  let next = 0
  let refused = 0
  await Promise.all(Array.from({ length: 50 }, async () => {
    while (next < credentials.length) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        headers: { authorization: `Bearer ${credentials[next++]}`, 'x-store-env-id': storeId }
      })
      await res.arrayBuffer()
      if (res.status !== 200) refused++
    }
  }))
  console.log(`warm-up: ${credentials.length} credentials used once each${refused ? `, ${refused} answers not 200` : ''}`)
}

export interface WrkFigure { name: string, rps: number, p50: number, p99: number, non2xx: number, rss: number | null }

/**
 * wrk -t2 against `path` on `port` (CONNECTIONS unless `connections` says); with `script`, wrk runs that Lua file with
 * `path` and `args` after `--` (the
 * script builds the requests). With `pid`, the figure carries that process's RSS at the end.
 */
export function wrk (
  name: string,
  port: number,
  path: string,
  options: { script?: string, args?: string[], pid?: number, connections?: number } = {}
): WrkFigure {
  const argv = ['-t2', `-c${options.connections ?? CONNECTIONS}`, `-d${DURATION}s`, '--latency']
  if (options.script) argv.push('-s', join(ROOT, options.script))
  argv.push(`http://127.0.0.1:${port}${options.script ? '' : path}`)
  if (options.script) argv.push('--', path, ...(options.args ?? []))
  const out = spawnSync('wrk', argv, { encoding: 'utf8' }).stdout
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out)
    return m ? Math.round(Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[m[2]] * 10) / 10 : NaN
  }
  const figure = {
    name,
    rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)),
    p50: ms('50'),
    p99: ms('99'),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    rss: options.pid ? rssMb(options.pid) : null
  }
  console.log(`${name}: ${figure.rps} req/s, p50 ${figure.p50} ms, p99 ${figure.p99} ms, non-2xx ${figure.non2xx}${figure.rss ? `, RSS ${figure.rss} MB` : ''}`)
  return figure
}

/** The markdown table of figures, each as a ratio to the first (the bare route). */
export function figureTable (figures: WrkFigure[], withRss = true): string {
  const [anchor] = figures
  const lines = withRss
    ? ['| target | req/s | vs bare | p50 ms | p99 ms | non-2xx | service RSS MB |', '|---|---:|---:|---:|---:|---:|---:|']
    : ['| target | req/s | vs bare | p50 ms | p99 ms | non-2xx |', '|---|---:|---:|---:|---:|---:|']
  for (const f of figures) lines.push(`| ${f.name} | ${f.rps} | ${(f.rps / anchor.rps).toFixed(2)} | ${f.p50} | ${f.p99} | ${f.non2xx} |${withRss ? ` ${f.rss ?? ''} |` : ''}`)
  return lines.join('\n')
}
