import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { versioningUrl } from '../delivery/index.js'
import { changelogJson, changelogSource, versioningPage } from './changelog.source.js'
import * as schemas from './changelog.schemas.js'
import { defineModule } from '../../lib/module.js'
import { deprecationNotices } from './deprecation-notices.js'

export { changelogSource } from './changelog.source.js'
export { deprecationNotices } from './deprecation-notices.js'

/**
 * Versioning (docs/changelog.md#versioning-policy): the page the deprecation `Link` of legacy-signed deliveries points
 * at, its JSON twin and the Markdown source, all from docs/changelog.md. Registered without a prefix: the page lives at
 * PUBLIC_URL/docs/versioning (beside the API reference at /docs), the JSON under /v1.
 */
const changelog: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/changelog', { schema: schemas.getChangelog, config: { auth: 'public' } }, async () => {
    return { ...changelogJson(), pageUrl: versioningUrl(app.config.publicUrl) }
  })

  app.get('/docs/versioning', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=300').send(versioningPage())
  })

  app.get('/docs/changelog.md', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('text/markdown; charset=utf-8').header('cache-control', 'public, max-age=300').send(changelogSource())
  })
}
export default changelog

declare module '../../lib/module.js' {
  interface Services {
    deprecationNotices: ReturnType<typeof deprecationNotices>
  }
}

export const manifest = defineModule({
  name: 'changelog',
  services: {
    deprecationNotices: ({ db, mailer, clock, config }) => deprecationNotices({ db, mail: mailer, clock, publicUrl: config.publicUrl })
  },
  routes: [{ plugin: changelog }]
})
