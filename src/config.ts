import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** docs/contract/operations.md#configuration. One schema; the Config type is derived from it. */
export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535, env: 'PORT' }),
  host: Type.String({ minLength: 1, env: 'HOST' }),
  publicUrl: Type.String({ pattern: '^https?://[^/]+.*[^/]$|^https?://[^/]+$', env: 'PUBLIC_URL' }),
  databaseUrl: Type.Optional(Type.String({ pattern: '^mysql2?://', env: 'DATABASE_URL' })),
  redisUrl: Type.Optional(Type.String({ pattern: '^rediss?://', env: 'REDIS_URL' })),
  /**
   * Namespace of the deployment's Redis keys (absent: `eh:`). Every instance, worker and CLI run of one deployment
   * must share it: the CLI tells running instances of a change through markers under it (lib/freshness.ts).
   */
  redisPrefix: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9:._-]{1,64}$', env: 'REDIS_PREFIX' })),
  /** How long a query waits for a MySQL connection (a free one from the pool, or a new one to be opened). */
  databaseConnectTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 600000, env: 'DATABASE_CONNECT_TIMEOUT_MS' })),
  dataDir: Type.String({ minLength: 1, env: 'DATA_DIR' }),
  logLevel: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { env: 'LOG_LEVEL' }),
  trustProxy: Type.Union([Type.Boolean(), Type.String({ minLength: 1 })], { env: 'TRUST_PROXY' }),
  secretKey: Type.String({ minLength: 32, env: 'SECRET_KEY' }),
  webhookAllowPrivate: Type.Boolean({ env: 'WEBHOOK_ALLOW_PRIVATE' }),
  smtpUrl: Type.Optional(Type.String({ pattern: '^smtps?://', env: 'SMTP_URL' })),
  mailFrom: Type.String({ minLength: 3, env: 'MAIL_FROM' }),
  reviewRequestDelayHours: Type.Number({ minimum: 0, maximum: 24 * 90, env: 'REVIEW_REQUEST_DELAY_HOURS' }),
  workers: Type.Boolean({ env: 'WORKERS' }),
  /**
   * The BigCommerce Management API, read for the records its webhooks name (docs/contract/resources.md#platform-sync),
   * and how long one read may take. Absent: BIGCOMMERCE_DEFAULTS.
   */
  bigcommerceApiUrl: Type.Optional(Type.String({ pattern: '^https?://[^/\\s]+(/[^\\s]*)?$', maxLength: 2048, env: 'BIGCOMMERCE_API_URL' })),
  bigcommerceApiTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60000, env: 'BIGCOMMERCE_API_TIMEOUT_MS' })),
  /** Where support requests are mailed (docs/contract/resources.md#support); absent: they are only kept. */
  supportEmail: Type.Optional(
    Type.String({ maxLength: 320, pattern: '^[^\\s@<>,;"]+@[^\\s@<>,;"]+\\.[^\\s@<>,;"]+$', env: 'SUPPORT_EMAIL' })
  )
})
export type Config = Static<typeof ConfigSchema>

export const DATABASE_CONNECT_TIMEOUT_MS = 5000

export const BIGCOMMERCE_DEFAULTS = { apiUrl: 'https://api.bigcommerce.com', timeoutMs: 5000 }

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

function bool (value: string | undefined, fallback: boolean): boolean | string | undefined {
  if (value === undefined || value === '') return fallback
  if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true
  if (['0', 'false', 'no'].includes(value.toLowerCase())) return false
  return value
}

function num (value: string | undefined, fallback: number): number | string {
  if (value === undefined || value === '') return fallback
  return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value
}

/** The embedded default keeps its generated key beside its data, so restarts can still decrypt. */
function embeddedSecret (dataDir: string): string {
  const file = join(dataDir, 'secret.key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const key = randomBytes(32).toString('base64url')
  writeFileSync(file, key + '\n', { mode: 0o600 })
  return key
}

/** Reads the environment; a bad value throws a ConfigError whose message is one line naming the variable. */
export function loadConfig (env: Env = process.env): Config {
  const host = env.HOST || '127.0.0.1'
  const port = num(env.PORT, 3000)
  const dataDir = resolve(env.DATA_DIR || './data')
  const trust = bool(env.TRUST_PROXY, false)
  const raw = {
    port,
    host,
    publicUrl: (env.PUBLIC_URL || `http://${host}:${port}`).replace(/\/$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.REDIS_PREFIX || undefined,
    databaseConnectTimeoutMs: num(env.DATABASE_CONNECT_TIMEOUT_MS, DATABASE_CONNECT_TIMEOUT_MS),
    dataDir,
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: trust,
    secretKey: env.SECRET_KEY || (env.DATABASE_URL ? undefined : embeddedSecret(dataDir)),
    webhookAllowPrivate: bool(env.WEBHOOK_ALLOW_PRIVATE, false),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Evidence Hub <no-reply@localhost>',
    reviewRequestDelayHours: num(env.REVIEW_REQUEST_DELAY_HOURS, 72),
    workers: bool(env.WORKERS, true),
    supportEmail: env.SUPPORT_EMAIL || undefined,
    bigcommerceApiUrl: (env.BIGCOMMERCE_API_URL || BIGCOMMERCE_DEFAULTS.apiUrl).replace(/\/+$/, ''),
    bigcommerceApiTimeoutMs: num(env.BIGCOMMERCE_API_TIMEOUT_MS, BIGCOMMERCE_DEFAULTS.timeoutMs)
  }
  return validateConfig(raw)
}

/** Settings that hold a secret or may carry one (a password in a URL): never echoed in a refusal. */
const NOT_ECHOED = new Set(['secretKey', 'databaseUrl', 'redisUrl', 'smtpUrl', 'publicUrl', 'bigcommerceApiUrl'])

/**
 * The schema's patterns only check the scheme. A URL no parser takes stops the start here, named and never echoed:
 * further on, mysql2 and ioredis throw "Invalid URL" errors that carry the whole value, and nodemailer's legacy
 * `url.parse` warns on stderr with it, password included. The URLs the service publishes or calls with other
 * credentials (PUBLIC_URL, BIGCOMMERCE_API_URL) have no use for a password in them, and would print it.
 */
const URL_SETTINGS = [
  { key: 'databaseUrl', env: 'DATABASE_URL', what: 'a valid mysql:// URL with a host', credentials: true },
  { key: 'redisUrl', env: 'REDIS_URL', what: 'a valid redis:// or rediss:// URL with a host', credentials: true },
  { key: 'smtpUrl', env: 'SMTP_URL', what: 'a valid smtp:// or smtps:// URL with a host', credentials: true },
  { key: 'publicUrl', env: 'PUBLIC_URL', what: 'a valid http(s) URL with a host and no user or password', credentials: false },
  {
    key: 'bigcommerceApiUrl',
    env: 'BIGCOMMERCE_API_URL',
    what: 'a valid http(s) URL with a host and no user or password',
    credentials: false
  }
] as const

function checkUrls (config: Config): void {
  for (const { key, env, what, credentials } of URL_SETTINGS) {
    const value = config[key]
    if (value !== undefined && !usableUrl(value, credentials)) throw new ConfigError(`Invalid configuration: ${env} must be ${what}`)
  }
}

function usableUrl (value: string, credentials: boolean): boolean {
  try {
    const url = new URL(value)
    return url.hostname !== '' && (credentials || (!url.username && !url.password))
  } catch {
    return false
  }
}

export function validateConfig (raw: unknown): Config {
  const first = Value.Errors(ConfigSchema, raw).First()
  if (first) {
    const key = first.path.split('/')[1] ?? ''
    const envName = (ConfigSchema.properties as Record<string, { env?: string }>)[key]?.env ?? key
    const shown = NOT_ECHOED.has(key) ? '' : ` (got ${JSON.stringify(first.value)})`
    const message = first.value === undefined ? 'is required' : first.message.toLowerCase()
    throw new ConfigError(`Invalid configuration: ${envName} ${message}${shown}`)
  }
  checkUrls(raw as Config)
  return raw as Config
}

/** For the entry points (server, worker): a bad configuration stops the process with one line naming the setting. */
export function loadConfigOrExit (): Config {
  try {
    return loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message)
      process.exit(1)
    }
    throw err
  }
}

/** Cookies (session, CSRF, OAuth interaction) are marked Secure exactly when the service is published over https. */
export function secureCookies (config: Pick<Config, 'publicUrl'>): boolean {
  return config.publicUrl.startsWith('https://')
}
