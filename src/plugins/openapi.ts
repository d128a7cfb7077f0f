import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { PROBLEM_SCHEMA, documentedSchema } from './openapi-operations.js'

/** The OpenAPI 3.1 document is generated from the route schemas; nothing is written by hand twice. */
export default fp(async (app) => {
  const oauth = `${app.config.publicUrl}/oauth`
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Evidence Hub API',
        version: 'v1',
        description: 'Reviews, products, orders and store evidence for online stores. Every call acts on one store ' +
          'environment (`x-store-env-id`). Errors are `{ message, code, requestId }` (RFC 9457 problem details with ' +
          '`Accept: application/problem+json`); branch on `code`. A method a path does not answer is 405 `method_not_allowed` ' +
          'with `Allow`. Rate limits: 10/s, 50/10 s ' +
          'and 200/min per credential, reported in `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.'
      },
      servers: [{ url: app.config.publicUrl }],
      components: {
        schemas: { Problem: PROBLEM_SCHEMA },
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`svc_…`) or an OAuth access token' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key (`svc_…`)' },
          oauth2: {
            type: 'oauth2',
            description:
              `OAuth 2.0 with PKCE (S256) from the provider at ${oauth}; the token carries the role, scopes and stores the person chose`,
            flows: {
              authorizationCode: {
                authorizationUrl: `${oauth}/auth`,
                tokenUrl: `${oauth}/token`,
                refreshUrl: `${oauth}/token`,
                scopes: { openid: 'Who connected', offline_access: 'A refresh token, to stay connected' }
              }
            }
          }
        }
      },
      security: [{ bearer: [] }, { apiKey: [] }, { oauth2: [] }]
    },
    hideUntagged: true,
    // Each operation's store header, security and error codes come from the same route config the pipeline reads.
    transform: ({ schema, url, route }) => ({
      schema: documentedSchema({ method: route.method, url: route.url, schema: schema as never, config: route.config }) as never,
      url
    })
  })
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } })
  app.get('/v1/openapi.json', { config: { auth: 'public' } }, async () => app.swagger())
}, { name: 'openapi', dependencies: ['config'] })
