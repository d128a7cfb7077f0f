import { spawn } from 'node:child_process'
import { runCli as runInProcess } from '../../src/cli/run.js'
import { onMysql, TEST_DATABASE_URL } from '../helper.js'
import { TEST_SECRET_KEY } from '../secret.js'

export interface CliResult { code: number | null, stdout: string, stderr: string }

/** The environment an operator would run the CLI with, pointed at this run's test database (MySQL or the SQLite data dir). */
function cliEnv (): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', SECRET_KEY: TEST_SECRET_KEY }
  if (onMysql) env.DATABASE_URL = TEST_DATABASE_URL
  else {
    delete env.DATABASE_URL
    env.DATA_DIR = process.env.EH_TEST_DATA_DIR
  }
  return env
}

/**
 * Runs a CLI command in this process (config from the same environment a spawned CLI gets), capturing what it writes.
 * Spawning costs ~1 s of node start-up per case; spawnCli keeps the process-level contract covered.
 */
export async function runCli (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const code = await runInProcess(args, {
    env: { ...cliEnv(), ...env },
    stdout: { write: (text: string) => { stdout += text } },
    stderr: { write: (text: string) => { stderr += text } }
  })
  return { code, stdout, stderr }
}

/**
 * Runs the operator CLI as a real process, as `npx evidence-hub` does (bin/evidence-hub.js: the compiled CLI, which
 * `npm test` builds first, or the sources through tsx if they changed since): for what only a process shows (exit
 * code, streams). `env` adds to (or, with undefined values, removes from) the operator's environment.
 */
export function spawnCli (args: string[], options: { entry?: string[], env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  const entry = options.entry ?? ['--no-warnings', 'bin/evidence-hub.js']
  const env = { ...cliEnv(), ...options.env }
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => { stdout += chunk })
    child.stderr.on('data', (chunk) => { stderr += chunk })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** The one JSON object a `--json` command prints: stdout must be exactly that and a newline. */
export function onlyJson (stdout: string): Record<string, unknown> {
  const lines = stdout.split('\n')
  if (lines.length !== 2 || lines[1] !== '') throw new Error(`expected one line of JSON on stdout, got: ${stdout}`)
  const value = JSON.parse(lines[0])
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('expected a JSON object')
  return value
}
