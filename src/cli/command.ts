import { parseArgs } from 'node:util'
import type { Services } from '../services.js'

/** What a command gets: the composition root's services (on the configured database) and its own arguments. */
export interface CommandContext { services: Services, args: string[] }
export interface Command {
  usage: string
  run: (ctx: CommandContext) => Promise<Record<string, unknown>>
}

export class UsageError extends Error {}

/** The command's options, strictly parsed; a missing required one is a usage error. */
export function options<T extends Record<string, { type: 'string' | 'boolean', multiple?: boolean }>> (
  args: string[],
  spec: T,
  required: Array<keyof T>
) {
  let values
  try {
    values = parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values as unknown as Record<
      keyof T,
      string | string[] | boolean | undefined
    >
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  for (const name of required) {
    if (values[name] === undefined) throw new UsageError(`--${String(name)} is required`)
  }
  return values
}
