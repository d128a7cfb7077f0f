/**
 * The operator command line as a function (docs/contract/operations.md#operator-command-line): index.ts runs it on the
 * process's argv and streams; tests run it in-process on strings. With --json a command writes exactly one JSON object
 * on stdout; failures go to stderr and the returned exit code is non-zero.
 */
import { inspect } from 'node:util'
import type { Knex } from 'knex'
import type { Redis } from 'ioredis'
import type { Config } from '../config.js'
import { maskUrlsIn } from '../lib/masked-url.js'
import type { Log } from '../lib/log.js'
import type { Services } from '../services.js'
import { UsageError, type Command } from './command.js'
import { commands as accountCommands } from './account-commands.js'
import { commands as oauthCommands } from './oauth-commands.js'
import { commands as dbCommands } from './db-commands.js'
import { commands as operatorCommands } from './operator-commands.js'
import { databaseInUse } from './database-in-use.js'

/** Where the CLI writes: the process's stdout and stderr, or anything that takes strings. */
export interface Output { write: (text: string) => unknown }
export interface CliIo {
  stdout: Output
  stderr: Output
  /** Read when no config is given; defaults to process.env. */
  env?: NodeJS.ProcessEnv
  config?: Config
}

/** Each group of commands lives in its own file; this list only names them. */
const commandGroups: Array<Record<string, Command>> = [dbCommands, accountCommands, operatorCommands, oauthCommands]
const commands: Record<string, Command> = Object.assign({}, ...commandGroups)

function findCommand (argv: string[]): { name: string, command: Command, rest: string[] } | null {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ')
    if (commands[name]) return { name, command: commands[name], rest: argv.slice(words) }
  }
  return null
}

function usage (): string {
  return 'Usage: npx evidence-hub <command> [options] [--json]   (or npm run cli -- …)\n\n' +
    Object.values(commands).map((c) => `  ${c.usage}`).join('\n')
}

function printHuman (out: Output, value: unknown, indent = ''): void {
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      out.write(`${indent}${key}:\n`)
      printHuman(out, v, indent + '  ')
    } else {
      out.write(`${indent}${key}: ${Array.isArray(v) ? v.join(', ') : String(v)}\n`)
    }
  }
}

/**
 * What only a command that runs needs (the configuration, the database, Redis and every module's services): imported
 * then, so that `--help` or a usage error answers without loading knex, fastify, oidc-provider or argon2 (about a
 * second of a compiled CLI's start).
 */
async function loadRuntime () {
  const [config, db, clock, redis, services] = await Promise.all([
    import('../config.js'),
    import('../db.js'),
    import('../lib/clock.js'),
    import('../lib/redis.js'),
    import('../services.js')
  ])
  return { ...config, ...db, ...clock, ...redis, ...services }
}

const HELP = new Set(['--help', '-h', 'help'])

/** Runs one command and returns its exit code; never throws. */
export async function runCli (argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json')
  const args = argv.filter((a) => a !== '--json' && a !== '--embedded')
  // Help asked for (or nothing asked) is the answer: on stdout, exit 0. A command not known is an error: stderr, 2.
  if (args.length === 0 || HELP.has(args[0])) {
    io.stdout.write(usage() + '\n')
    return 0
  }
  const found = findCommand(args)
  if (!found) {
    io.stderr.write(`unknown command: ${args.join(' ')}\n\n${usage()}\n`)
    return 2
  }
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    io.stdout.write(`Usage: npx evidence-hub ${found.command.usage}\n`)
    return 0
  }
  let db: Knex | null = null
  let redis: Redis | null = null
  let services: Services | null = null
  let isConfigError = (_err: unknown) => false
  try {
    const runtime = await loadRuntime()
    isConfigError = (err) => err instanceof runtime.ConfigError
    const config = io.config ?? runtime.loadConfig(io.env ?? process.env)
    // Which database the command acts on is said before anything is changed, on stderr so that --json stays pure.
    io.stderr.write(`${databaseInUse(config, argv.includes('--embedded'))}\n`)
    const log = stderrLog(io.stderr)
    db = runtime.createKnex(config)
    await runtime.migrateLatest(db)
    // Running instances keep stores, credentials and memberships in memory under markers in Redis: a change made
    // here reaches their next request only if this process moves those markers too (lib/freshness.ts).
    redis = config.redisUrl ? await runtime.connectRedis(config.redisUrl, log.warn) : null
    services = runtime.buildServices({ db, clock: runtime.systemClock, config, redis, log })
    const result = await found.command.run({ services, args: found.rest })
    if (json) io.stdout.write(JSON.stringify(result) + '\n')
    else printHuman(io.stdout, result)
    return 0
  } catch (err) {
    const known = err instanceof UsageError || isConfigError(err) || (err as { statusCode?: number }).statusCode
    // inspect() is what console.error printed for an unexpected error: its stack and any extra fields. Either may
    // quote a URL it was given, password included (mysql2's and ioredis's "Invalid URL").
    io.stderr.write(maskUrlsIn(known ? `${found.name}: ${(err as Error).message}` : inspect(err)) + '\n')
    if (err instanceof UsageError) io.stderr.write(`usage: ${found.command.usage}\n`)
    return 1
  } finally {
    await services?.close()
    // This process will not be there to retry a marker update Redis missed; instances read everything again within a
    // minute anyway (lib/freshness.ts `staleAfter`).
    if ((await services?.freshness.settled())?.length) {
      io.stderr.write('warning: Redis could not be told of the change; running instances see it within a minute\n')
    }
    // Left open, the connection (and its reconnection timer, when Redis is down) would keep the process alive.
    redis?.disconnect()
    await db?.destroy()
  }
}

/**
 * What services and the Redis client report while a command runs, on stderr so that --json stays pure: each kind
 * once (a Redis that is down reports every reconnection attempt).
 */
function stderrLog (stderr: Output): Log {
  const said = new Set<string>()
  const line = (level: string) => (obj: object, msg: string) => {
    if (said.has(msg)) return
    said.add(msg)
    const detail = (obj as { err?: { message?: string } }).err?.message
    stderr.write(maskUrlsIn(`${level}: ${msg}${detail ? ` (${detail})` : ''}`) + '\n')
  }
  return { info () {}, warn: line('warning'), error: line('error') }
}
