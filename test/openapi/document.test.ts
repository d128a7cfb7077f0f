import t from 'tap'
import { Validator } from '@seriousme/openapi-schema-validator'
import { sharedApp } from '../helper.js'

t.test('GET /v1/openapi.json is a valid OpenAPI 3.1 document, served without credentials', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.equal(doc.openapi, '3.1.0')
  const result = await new Validator().validate(doc)
  t.same(result.errors, undefined, 'the validator reports no errors')
  t.equal(result.valid, true)
})

t.test('the document lists every foundation route with a summary, tags and its error responses', async (t) => {
  const app = await sharedApp()
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  const expected: Record<string, string[]> = {
    '/v1/health': ['get'],
    '/v1/api-keys': ['get', 'post'],
    '/v1/api-keys/{id}': ['delete', 'get'],
    '/v1/account/stores': ['get'],
    '/v1/account/members': ['get'],
    '/v1/account/members/{id}': ['delete'],
    '/v1/account/audit-log': ['get']
  }
  for (const [path, methods] of Object.entries(expected)) {
    t.same(Object.keys(doc.paths[path] ?? {}).filter((k) => k !== 'parameters').sort(), methods, path)
    for (const method of methods) {
      const op = doc.paths[path][method]
      t.ok(op.summary, `${method} ${path} has a summary`)
      t.ok(op.tags?.length, `${method} ${path} has tags`)
      if (path !== '/v1/health') t.ok(op.responses['401'] && op.responses['403'], `${method} ${path} documents 401 and 403`)
    }
  }
  t.notOk(doc.paths['/v1/openapi.json'], 'untagged internals stay out')
  t.ok(doc.components.securitySchemes.bearer && doc.components.securitySchemes.apiKey)
})

t.test('the browsable docs are served at /docs', async (t) => {
  const app = await sharedApp()
  const res = await app.inject({ method: 'GET', url: '/docs/' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /text\/html/)
})
