import { maskUrlsIn } from './masked-url.js'

/** Enough of a logger for code that runs outside a request (jobs, the worker process); fastify's logger is one. */
export interface Log {
  info: (obj: object, msg: string) => void
  warn: (obj: object, msg: string) => void
  error: (obj: object, msg: string) => void
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const

/** One JSON line per entry on stdout, for processes without a fastify logger (the worker process). */
export function consoleLog (level: string): Log {
  const least = Math.max(0, LEVELS.indexOf(level as typeof LEVELS[number]))
  const at = (name: typeof LEVELS[number]) => (obj: object, msg: string) => {
    if (LEVELS.indexOf(name) < least) return
    process.stdout.write(maskUrlsIn(JSON.stringify({ level: name, time: Date.now(), ...obj, msg })) + '\n')
  }
  return { info: at('info'), warn: at('warn'), error: at('error') }
}
