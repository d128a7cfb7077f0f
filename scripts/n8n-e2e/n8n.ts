/**
 * A real n8n for the end-to-end run: installed once into a cache folder outside the repository and reused, with its
 * own user folder per run, where the node package is installed from its npm tarball as n8n installs community
 * packages (`$N8N_USER_FOLDER/.n8n/nodes/node_modules/`).
 *
 * n8n 1.123 is the last line that runs on Node 20 (2.x needs 22). Its plain install fails here twice: `xlsx` is
 * fetched from a CDN (the registry's `@e965/xlsx` is the same library), and isolated-vm 6 needs Node 22 (5.0.4 builds
 * on 20; the legacy expression engine does not use it).
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { promisify } from 'node:util'
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export const N8N_VERSION = '1.123.81'
const CACHE = process.env.EH_N8N_CACHE ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'evidence-hub', `n8n-${N8N_VERSION}`)
const INSTALLED = join(CACHE, '.installed')
const BIN = join(CACHE, 'node_modules', 'n8n', 'bin', 'n8n')

/** n8n's folder in the cache, installed if it is not there yet. */
export function ensureN8n (log: (line: string) => void): string {
  if (existsSync(INSTALLED)) return BIN
  log(`installing n8n ${N8N_VERSION} into ${CACHE} (once; about 1.8 GB, ~10 minutes)`)
  mkdirSync(CACHE, { recursive: true })
  writeFileSync(
    join(CACHE, 'package.json'),
    JSON.stringify(
      {
        private: true,
        dependencies: { n8n: N8N_VERSION },
        overrides: { xlsx: 'npm:@e965/xlsx@0.20.3', 'isolated-vm': '5.0.4' }
      },
      null,
      2
    )
  )
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=error'], {
    cwd: CACHE,
    stdio: ['ignore', 'inherit', 'inherit']
  })
  writeFileSync(INSTALLED, `${new Date().toISOString()}\n`)
  return BIN
}

/** Builds connectors/n8n, packs it, and installs the tarball into the user folder's community nodes. */
export function installPackage (userFolder: string, work: string): string {
  execFileSync(process.execPath, ['connectors/n8n/scripts/build.mjs'], { stdio: 'inherit' })
  const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: 'connectors/n8n', encoding: 'utf8' })
  const tarball = join(work, (JSON.parse(packed) as Array<{ filename: string }>)[0].filename)
  const nodes = join(userFolder, '.n8n', 'nodes')
  mkdirSync(nodes, { recursive: true })
  writeFileSync(join(nodes, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true }))
  // n8n-workflow is a peer: n8n's own copy (n8n puts its modules on NODE_PATH), never a second one.
  execFileSync('npm', [
    'install',
    tarball,
    '--omit=dev',
    '--legacy-peer-deps',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--no-package-lock',
    '--loglevel=error'
  ], { cwd: nodes, stdio: 'inherit' })
  return tarball
}

export interface N8n {
  url: string
  env: NodeJS.ProcessEnv
  /**
   * One n8n command to its end: its stdout; throws on a non-zero exit. Asynchronous, so that this process goes on
   * serving (the receiver) and noticing closed connections while n8n works.
   */
  command: (args: string[]) => Promise<string>
  start: (logFile: string) => ChildProcess
}

export function n8n (bin: string, userFolder: string, port: number): N8n {
  const url = `http://127.0.0.1:${port}`
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    N8N_USER_FOLDER: userFolder,
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PROTOCOL: 'http',
    WEBHOOK_URL: `${url}/`,
    N8N_EDITOR_BASE_URL: url,
    N8N_ENCRYPTION_KEY: 'evidence-hub-n8n-end-to-end-only',
    N8N_EXPRESSION_ENGINE: 'legacy',
    N8N_SECURE_COOKIE: 'false',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
    N8N_RUNNERS_ENABLED: 'false',
    N8N_LOG_LEVEL: 'info',
    N8N_LOG_OUTPUT: 'console',
    DB_SQLITE_POOL_SIZE: '2',
    NODE_ENV: 'production'
  }
  return {
    url,
    env,
    command: async (args) =>
      (await promisify(execFile)(process.execPath, [bin, ...args], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })).stdout,
    start: (logFile) => {
      const child = spawn(process.execPath, [bin, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      const log = createWriteStream(logFile)
      child.stdout!.pipe(log)
      child.stderr!.pipe(log)
      return child
    }
  }
}

/** A fresh user folder for this run. */
export function freshUserFolder (work: string): string {
  const folder = join(work, 'n8n-home')
  rmSync(folder, { recursive: true, force: true })
  mkdirSync(folder, { recursive: true })
  return folder
}

/** The JSON document a command printed, between the log lines n8n may print around it. */
export function jsonOf (stdout: string): any {
  const lines = stdout.split('\n')
  const first = lines.findIndex((line) => line === '{' || line === '[')
  const fromEnd = [...lines].reverse().findIndex((line) => line === '}' || line === ']')
  const last = lines.length - 1 - fromEnd
  if (first < 0 || fromEnd < 0 || last < first) throw new Error(`no JSON in the command's output: ${stdout.slice(0, 500)}`)
  return JSON.parse(lines.slice(first, last + 1).join('\n'))
}

export function readJson (file: string): any {
  return JSON.parse(readFileSync(file, 'utf8'))
}
