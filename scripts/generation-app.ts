/**
 * The app that generators read (the OpenAPI document, the n8n node's catalogue): built in this process and never
 * listening, on a throw-away embedded SQLite directory, with no workers, Redis or logger.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.js'
import { validateConfig } from '../src/config.js'
import { createKnex, migrateLatest } from '../src/db.js'

/** `fn` on a ready app whose PUBLIC_URL is `publicUrl`; the app and its directory are gone afterwards. */
export async function withGenerationApp<T> (publicUrl: string, fn: (app: FastifyInstance) => T | Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'evidence-hub-generate-'))
  // Building the app reads the database (the OAuth signing keys), so the throw-away one is migrated first.
  const db = createKnex({ dataDir })
  await migrateLatest(db)
  await db.destroy()
  const app = await buildApp(validateConfig({
    port: 0,
    host: '127.0.0.1',
    publicUrl,
    dataDir,
    logLevel: 'silent',
    trustProxy: false,
    secretKey: 'openapi-generation-only-'.padEnd(32, '0'),
    webhookAllowPrivate: false,
    mailFrom: 'Evidence Hub <no-reply@localhost>',
    reviewRequestDelayHours: 72,
    workers: false
  }), { logger: false, redis: null })
  try {
    await app.ready()
    return await fn(app)
  } finally {
    await app.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
