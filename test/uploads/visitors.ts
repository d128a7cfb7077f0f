import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { storefront } from '../storefront.js'
import { formData, JPEG } from '../content/multipart.js'

/** Storefront visitors of one store, each from an IP of its own, so no per-IP budget is reached. */
export function visitorsOf (t: Test, app: FastifyInstance, storeId: string) {
  let count = 0
  const ip = () => `198.51.100.${++count}`
  return {
    ip,
    /** An image uploaded as a visitor uploads it (POST /v1/uploads/image). */
    async upload (): Promise<{ id: string, url: string }> {
      const res = await storefront(app, {
        url: '/v1/uploads/image',
        store: storeId,
        ip: ip(),
        ...formData({ filename: 'a.jpg', type: 'image/jpeg', bytes: JPEG })
      })
      t.equal(res.statusCode, 201)
      return res.json()
    }
  }
}
