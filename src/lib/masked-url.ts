/**
 * Passwords in URLs (DATABASE_URL, REDIS_URL, SMTP_URL, …) never reach a log line, an error printed at start or the
 * CLI's output: everything that writes those passes its text through here (the app's logger, the worker's, knex's,
 * the entry points' last words, the CLI).
 */

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i
/** Schemes whose authority a URL parser also ends at a backslash (WHATWG "special" schemes). */
const SPECIAL = /^(https?|wss?|ftp|file):/i
const MASK = '***'

function parses (url: string): boolean {
  try {
    return Boolean(new URL(url))
  } catch {
    return false
  }
}

/**
 * Where the user information of `rest` (the URL after its scheme) ends, or -1. A URL that parses has it where every
 * client (mysql2, ioredis, nodemailer) finds it: before the last `@` of the authority. One that does not (or has no
 * scheme) may hold a password with characters left unescaped (`/`, `#`, `@`), so it runs to the last `@` of all.
 */
function credentialsEnd (url: string, scheme: string, rest: string): number {
  if (!scheme || !parses(url)) return rest.lastIndexOf('@')
  const end = rest.search(SPECIAL.test(scheme) ? /[/?#\\]/ : /[/?#]/)
  return (end < 0 ? rest : rest.slice(0, end)).lastIndexOf('@')
}

/**
 * `url` with its password replaced by `***`, as written otherwise (`mysql://root:***@db:3306/app`); a user name
 * alone is kept, as database errors name the user anyway. For any string: one with no scheme, one no parser takes.
 */
export function maskUrl (url: string): string {
  const scheme = SCHEME.exec(url)?.[0] ?? ''
  const rest = url.slice(scheme.length)
  const at = credentialsEnd(url, scheme, rest)
  const colon = at < 0 ? -1 : rest.slice(0, at).indexOf(':')
  if (colon < 0 || colon + 1 === at) return url
  return scheme + rest.slice(0, colon + 1) + MASK + rest.slice(at)
}

/** A URL within text: from its scheme to the next space, quote or angle bracket (how errors and JSON quote them). */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]+/gi

/** `text` (an error's message or stack, a log line) with the password of every URL in it masked. */
export function maskUrlsIn (text: string): string {
  return text.includes('@') ? text.replace(URL_IN_TEXT, maskUrl) : text
}
