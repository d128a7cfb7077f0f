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

t.test('/docs loads the same operations as a valid OpenAPI 3.0 document, each error response written once', async (t) => {
  const app = await sharedApp()
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  const res = await app.inject({ method: 'GET', url: '/docs/json' })
  t.equal(res.statusCode, 200)
  const ui = res.json()
  t.equal(ui.openapi, '3.0.3')
  const result = await new Validator().validate(ui)
  t.same(result.errors, undefined, 'the validator reports no errors')
  const operations = (d: { paths: Record<string, Record<string, { security?: unknown[] }>> }) =>
    Object.entries(d.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => [`${method} ${path}`, op.security]))
  t.same(operations(ui), operations(doc), 'the same operations, with the same security')
  t.notMatch(JSON.stringify(ui), '"type":"null"', 'nullable, as 3.0 says it')
  const refused = ui.paths['/v1/reviews'].get.responses['401']
  t.same(refused, { $ref: ui.paths['/v1/products'].get.responses['401'].$ref }, 'one 401 for both')
  t.same(ui.components.responses[refused.$ref.split('/').pop()], doc.paths['/v1/reviews'].get.responses['401'])
  t.notOk(ui.paths['/v1/reviews'].get.responses['200'].$ref, 'success responses stay in place')
  t.same(ui.servers, [{ url: '/' }], '"Try it out" calls the origin the page came from')
})
