import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'

/** The OpenAPI 3.1 document is generated from the route schemas; nothing is written by hand twice. */
export default fp(async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Evidence Hub API',
        version: 'v1',
        description: 'Reviews, products, orders and store evidence for online stores. Every call acts on one store ' +
          'environment (`x-store-env-id`). Errors are `{ message, code }`; branch on `code`. Rate limits: 10/s, 50/10 s ' +
          'and 200/min per credential, reported in `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.'
      },
      servers: [{ url: app.config.publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`svc_…`) or an OAuth access token' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' }
        }
      },
      security: [{ bearer: [] }, { apiKey: [] }]
    },
    hideUntagged: true
  })
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } })
  app.get('/v1/openapi.json', { config: { auth: 'public' } }, async () => app.swagger())
}, { name: 'openapi', dependencies: ['config'] })
