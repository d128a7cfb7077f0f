import type { Services } from '../services.js'

/** What a command gets: the composition root's services (on the configured database) and its own arguments. */
export interface CommandContext { services: Services, args: string[] }
export interface Command {
  usage: string
  run: (ctx: CommandContext) => Promise<Record<string, unknown>>
}

export class UsageError extends Error {}
