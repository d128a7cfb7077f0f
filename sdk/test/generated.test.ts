/** The committed sdk/openapi.json and sdk/src/schema.ts are what `npm run sdk` would write now. */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { build } from '../../test/helper.js'
import { DOCUMENT_FILE, DOCUMENT_PUBLIC_URL, documentText, generateTypes, TYPES_FILE } from '../../scripts/openapi.js'

t.test('sdk/openapi.json is the document the service serves, and sdk/src/schema.ts its generated types (else: npm run sdk)', async (t) => {
  const app = await build(t, { config: { publicUrl: DOCUMENT_PUBLIC_URL } })
  const served = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  const committed = readFileSync(DOCUMENT_FILE, 'utf8')
  t.ok(committed === documentText(served), 'sdk/openapi.json is current: run `npm run sdk` and commit the result')
  t.ok(readFileSync(TYPES_FILE, 'utf8') === await generateTypes(JSON.parse(committed)), 'sdk/src/schema.ts is current: run `npm run sdk`')
})

t.test('the types ask for the store header nowhere (the client sends it), while the document requires it with every credential', async (t) => {
  const doc = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8'))
  const list = doc.paths['/v1/reviews'].get
  t.ok(list.security.length > 0 && list.security.every((requirement: object) => 'storeEnv' in requirement), 'the document requires it')
  t.match(doc.components.securitySchemes.storeEnv, { type: 'apiKey', in: 'header', name: 'x-store-env-id' })
  const types = readFileSync(TYPES_FILE, 'utf8')
  t.notMatch(types, /"x-store-env-id": string/, 'never a required header in the types')
  t.match(types, /"x-store-env-id"\?: string/, 'an optional one, to act on another store in one call')
})
