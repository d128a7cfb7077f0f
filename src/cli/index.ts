/**
 * Operator command line (decisions.md section 13): `npm run cli -- <command> [options] [--json]`.
 * With --json each command prints exactly one JSON object on stdout; failures go to stderr with a non-zero exit.
 */
import type { Knex } from 'knex'
import { ConfigError, loadConfig } from '../config.js'
import { createKnex, migrateLatest } from '../db.js'
import { systemClock } from '../lib/clock.js'
import { buildServices } from '../services.js'
import { UsageError, type Command } from './command.js'
import { commands as accountCommands } from './account-commands.js'
import { commands as oauthCommands } from './oauth-commands.js'
import { commands as dbCommands } from './db-commands.js'

/** Each group of commands lives in its own file; this list only names them. */
const commandGroups: Array<Record<string, Command>> = [dbCommands, accountCommands, oauthCommands]
const commands: Record<string, Command> = Object.assign({}, ...commandGroups)

function findCommand (argv: string[]): { name: string, command: Command, rest: string[] } | null {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ')
    if (commands[name]) return { name, command: commands[name], rest: argv.slice(words) }
  }
  return null
}

function usage (): string {
  return 'Usage: npm run cli -- <command> [options] [--json]\n\n' + Object.values(commands).map((c) => `  ${c.usage}`).join('\n')
}

function printHuman (value: unknown, indent = ''): void {
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      console.log(`${indent}${key}:`)
      printHuman(v, indent + '  ')
    } else {
      console.log(`${indent}${key}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    }
  }
}

async function main (argv: string[]): Promise<number> {
  const json = argv.includes('--json')
  const args = argv.filter((a) => a !== '--json')
  const found = findCommand(args)
  if (!found || args.includes('--help')) {
    console.error(usage())
    return found || args.includes('--help') ? 0 : 2
  }
  let db: Knex | null = null
  try {
    const config = loadConfig()
    db = createKnex(config)
    await migrateLatest(db)
    const services = buildServices({ db, clock: systemClock, config, redis: null })
    const result = await found.command.run({ services, args: found.rest }).finally(() => services.close())
    if (json) process.stdout.write(JSON.stringify(result) + '\n')
    else printHuman(result)
    return 0
  } catch (err) {
    const known = err instanceof UsageError || err instanceof ConfigError || (err as { statusCode?: number }).statusCode
    console.error(known ? `${found.name}: ${(err as Error).message}` : err)
    if (err instanceof UsageError) console.error(`usage: ${found.command.usage}`)
    return 1
  } finally {
    await db?.destroy()
  }
}

process.exitCode = await main(process.argv.slice(2))
