import type { Command } from './command.js'

/** `npm run migrate`: the CLI applies pending migrations before any command; this one only reports the result. */
export const commands: Record<string, Command> = {
  migrate: {
    usage: 'migrate   (applies pending migrations and prints the current version; also: npm run migrate)',
    async run ({ services: { db } }) {
      const [, pending] = await db.migrate.list() as [unknown[], unknown[]]
      return { version: await db.migrate.currentVersion(), pending: pending.length }
    }
  }
}
