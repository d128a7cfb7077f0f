/**
 * Runs the service (or the worker) as its own process for a bench, so the load generator and the anchor measured in
 * the bench's process do not share its event loop. BENCH_SERVICE_DIR points at another checkout's root (its src/
 * next to this node_modules) to measure a "before" build with the same bench.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = process.env.BENCH_SERVICE_DIR ?? join(dirname(fileURLToPath(import.meta.url)), '..')

export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface ServiceProcess { url: string, child: ChildProcess, stop: () => Promise<void> }

/** `entry`: 'server' (HTTP API) or 'worker'; `env` adds to the bench's settings (database, Redis, secret). */
export async function startService (entry: 'server' | 'worker', env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', `${entry}.ts`)], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: process.env.BENCH_SERVICE_LOG_LEVEL ?? 'silent', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
    stdio: ['ignore', process.env.BENCH_SERVICE_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit']
  })
  const url = `http://127.0.0.1:${port}`
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  if (entry === 'server') {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`)
      try {
        if ((await fetch(`${url}/health`)).status < 500) break
      } catch {}
      if (i > 300) throw new Error(`${entry} did not listen within 60 s`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    }
  }
}
