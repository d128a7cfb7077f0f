import { readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

/** Read once: the script is part of the release (scripts/copy-assets.mjs puts it beside the compiled module). */
const SCRIPT = readFileSync(new URL('./widget.js', import.meta.url))
const ETAG = `"${createHash('sha256').update(SCRIPT).digest('base64url').slice(0, 27)}"`

/**
 * GET /widget.js: the storefront widget (docs/contract/storefront.md#widget-reads). Public and the same for every
 * store, so shared caches keep it; shops embed it with `data-store`. It holds no key and nothing of any store.
 */
export async function widgetRoutes (app: FastifyInstance) {
  app.get('/widget.js', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'public, max-age=300').header('ETag', ETAG).header('X-Content-Type-Options', 'nosniff')
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
    if (request.headers['if-none-match'] === ETAG) return reply.status(304).send()
    return reply.type('text/javascript; charset=utf-8').send(SCRIPT)
  })
}
