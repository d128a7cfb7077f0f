import t from 'tap'
import { sharedApp } from '../helper.js'

interface Operation {
  parameters?: Array<{ $ref?: string, name?: string }>
  responses: Record<string, { content?: Record<string, { schema: { properties?: { code?: { enum?: string[] } } } }> }>
}

async function documentOf () {
  const app = await sharedApp()
  return (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
    paths: Record<string, Record<string, Operation>>
    components: { parameters: Record<string, { name: string, in: string, schema: { maxLength: number } }> }
  }
}

const REF = '#/components/parameters/IdempotencyKey'
const takesKey = (operation: Operation) => (operation.parameters ?? []).some((p) => p.$ref === REF)
const codesAt = (operation: Operation, status: string) =>
  operation.responses[status]?.content?.['application/json']?.schema.properties?.code?.enum ?? []

t.test('the document declares the Idempotency-Key header once, as a shared parameter', async (t) => {
  const doc = await documentOf()
  t.match(doc.components.parameters.IdempotencyKey, { name: 'Idempotency-Key', in: 'header', schema: { maxLength: 255 } })
})

t.test('credentialed POSTs and the bulk PUTs take the header, with its error codes', async (t) => {
  const doc = await documentOf()
  for (
    const [path, method] of [['/v1/imports', 'post'], ['/v1/outbound-webhooks', 'post'], ['/v1/products', 'put'], ['/v1/orders', 'put']]
  ) {
    const operation = doc.paths[path][method]
    t.ok(takesKey(operation), `${method} ${path}`)
    t.ok(codesAt(operation, '400').includes('idempotency_key_reused'), `${method} ${path}: 400 idempotency_key_reused`)
    t.ok(codesAt(operation, '409').includes('idempotency_key_in_progress'), `${method} ${path}: 409 idempotency_key_in_progress`)
  }
})

t.test('GETs, DELETEs and storefront POSTs do not take the header', async (t) => {
  const doc = await documentOf()
  t.notOk(takesKey(doc.paths['/v1/imports'].get))
  t.notOk(takesKey(doc.paths['/v1/reviews/{id}'].delete))
  t.notOk(takesKey(doc.paths['/v1/reviews'].post), 'the storefront submission')
})

t.test('a loyalty transaction lists idempotency_key_reused both as its body field\'s 409 and as the header\'s 400', async (t) => {
  const doc = await documentOf()
  const operation = doc.paths['/v1/loyalty/accounts/{customerId}/transactions'].post
  t.ok(codesAt(operation, '409').includes('idempotency_key_reused'))
  t.ok(codesAt(operation, '400').includes('idempotency_key_reused'))
})
