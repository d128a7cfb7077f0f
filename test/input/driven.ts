import type { Test } from 'tap'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { documentOf } from '../schema-values.js'

/** Paths the document-driven write tests leave to tests of their own. */
export const ELSEWHERE = /oauth|mcp|uploads\/videos|backups|erasure|transfer-ownership|subscription\/change/

/**
 * An app on a manual clock, a tenant, the OpenAPI document and `send`, which calls as the tenant (from an allowed
 * storefront origin) with a fresh budget for every request: the limits have tests of their own.
 */
export async function drivenStore (t: Test) {
  const clock = manualClock()
  const app = await build(t, { clock })
  const tenant = await makeTenant(app)
  const doc = await documentOf(app)
  const send = (method: string, target: string, payload?: unknown) => {
    clock.advance(61_000)
    return call(app, {
      method: method.toUpperCase() as 'POST',
      url: target,
      key: tenant.key,
      store: tenant.storeId,
      headers: { origin: 'https://shop.example' },
      payload: payload as object
    })
  }
  return { app, clock, tenant, doc, send }
}
