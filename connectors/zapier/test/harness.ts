import { createRequire } from 'node:module'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, type BuildOptions } from '../../../test/helper.js'

const require = createRequire(import.meta.url)

/** The integration as Zapier loads it, and zapier-platform-core's app tester for it. */
export const App: any = require('../index.js')
const zapier = require('zapier-platform-core')
type AppTester = (method: unknown, bundle?: Record<string, unknown>) => Promise<any>
/** zapier-platform-core's app tester for an app definition (a variant of App, e.g. with Zapier's template middleware). */
export const createAppTester: (app: unknown) => AppTester = zapier.createAppTester
export const appTester: AppTester = createAppTester(App)

/**
 * The real service on a random local port, reached over HTTP by the integration (EVIDENCE_HUB_URL, as a deployed
 * version reads it). One per test file; every test makes its own tenant.
 */
export async function serve (t: Test, options: BuildOptions = {}): Promise<{ app: FastifyInstance, url: string }> {
  const app = await build(t, options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const url = `http://127.0.0.1:${port}`
  process.env.EVIDENCE_HUB_URL = url
  return { app, url }
}

export async function append (
  app: FastifyInstance,
  tenant: { orgId: string, storeId: string },
  type: string,
  data: Record<string, unknown>
) {
  return app.db.transaction((trx) => app.events.append(trx, { orgId: tenant.orgId, storeEnvId: tenant.storeId, type, data }))
}

/** What Zapier hands an instant trigger's `perform` for a delivery to its target URL. */
export function zapierBundle (delivery: { headers: Record<string, unknown>, body: string }, authData: object, subscribeData: object) {
  const headers = Object.fromEntries(
    Object.entries(delivery.headers).map(([k, v]) => [`Http-${k.replace(/(^|-)(\w)/g, (_m, dash, c) => dash + c.toUpperCase())}`, v])
  )
  return {
    authData,
    subscribeData,
    cleanedRequest: JSON.parse(delivery.body),
    rawRequest: { method: 'POST', headers, content: delivery.body }
  }
}
