import type { FastifyInstance, InjectOptions } from 'fastify'

export interface StorefrontCall {
  method?: InjectOptions['method']
  url: string
  store?: string
  /** null: no Origin header. */
  origin?: string | null
  ip?: string
  payload?: InjectOptions['payload']
  headers?: Record<string, string>
}

/** An unauthenticated storefront call: the browser's Origin, the public store id, and the visitor's IP. */
export function storefront (
  app: FastifyInstance,
  { method = 'POST', url, store, origin = 'https://shop.example', ip = '203.0.113.7', payload, headers }: StorefrontCall
) {
  return app.inject({
    method,
    url,
    remoteAddress: ip,
    payload,
    headers: {
      ...(store ? { 'x-store-env-id': store } : {}),
      ...(origin ? { origin } : {}),
      ...headers
    }
  } as InjectOptions)
}
