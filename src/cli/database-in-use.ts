import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../config.js'
import { maskUrl } from '../lib/masked-url.js'
import { UsageError } from './command.js'

/**
 * The CLI reads the same settings as the service, but from its own shell: run without DATABASE_URL beside a service
 * on MySQL, it would quietly write to the embedded SQLite file. The service notes the database it runs on in the
 * data directory, and the CLI refuses the embedded file when that note names MySQL, unless told --embedded.
 */
const NOTE = 'database-in-use.json'

export function recordDatabaseInUse (config: Pick<Config, 'databaseUrl' | 'dataDir'>): void {
  if (!config.databaseUrl) return
  mkdirSync(config.dataDir, { recursive: true })
  writeFileSync(join(config.dataDir, NOTE), JSON.stringify({ database: maskUrl(config.databaseUrl) }) + '\n')
}

/** The line the CLI prints on stderr; throws when the embedded file is not the service's database. */
export function databaseInUse (config: Pick<Config, 'databaseUrl' | 'dataDir'>, embeddedAllowed: boolean): string {
  if (config.databaseUrl) return `database: ${maskUrl(config.databaseUrl)}`
  const note = join(config.dataDir, NOTE)
  if (existsSync(note) && !embeddedAllowed) {
    const { database } = JSON.parse(readFileSync(note, 'utf8')) as { database: string }
    throw new UsageError(
      `the service here runs on ${database} (noted in ${note}), but DATABASE_URL is not set: set it to act on that database, or add --embedded to use the embedded SQLite file anyway`
    )
  }
  return `database: embedded SQLite file ${join(config.dataDir, 'evidence-hub.sqlite')}`
}
