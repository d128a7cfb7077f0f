/**
 * `npm run docs`: writes docs/reference.md, the API reference, from what the service itself declares — the OpenAPI
 * document its routes generate, the error list of src/errors.ts and the resources of src/lib/permissions.ts — so the
 * reference cannot drift from the code (test/openapi/reference.test.ts fails when the file is stale).
 */
import { writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { errors } from '../src/errors.js'
import { RESOURCES } from '../src/lib/permissions.js'
import { STORE_SCHEME } from '../src/plugins/openapi-operations.js'
import { generateDocument } from './openapi.js'

interface Operation {
  summary?: string
  tags?: string[]
  security?: Array<Record<string, unknown>>
  'x-scope'?: string
  'x-min-role'?: string
  responses: Record<string, { content?: Record<string, { schema?: { properties?: { code?: { enum?: string[] } } } }> }>
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>
}

/** The service's own document (scripts/openapi.ts builds the app on a throw-away embedded database). */
export async function currentDocument (): Promise<OpenApiDocument> {
  return await generateDocument() as unknown as OpenApiDocument
}

function operations (doc: OpenApiDocument) {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item)
    .filter(([method]) => method !== 'parameters')
    .map(([method, op]) => ({ method: method.toUpperCase(), path, op })))
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
}

/** The codes an operation answers with, each as `code status` (one code may come with two statuses). */
function codesOf (op: Operation): string[] {
  return Object.entries(op.responses).flatMap(([status, r]) =>
    (r.content?.['application/json']?.schema?.properties?.code?.enum ?? []).map((code) => `${code} ${status}`))
}

function access (op: Operation): string {
  if (op.security && op.security.length === 0) return 'none (public or storefront)'
  const scope = op['x-scope'] ? op['x-scope'].split(' ').map((one) => `\`${one}\``).join(' or ') : 'checked by the operation (see its docs)'
  const access = op['x-min-role'] ? `${scope}, role ${op['x-min-role']} or above` : scope
  // The store header: the security scheme every requirement of a store-scoped operation names with its credential.
  return op.security?.length && op.security.every((requirement) => STORE_SCHEME in requirement) ? `${access}; store header` : access
}

export function renderReference (doc: OpenApiDocument): string {
  const ops = operations(doc)
  const lines: string[] = [
    '# API reference',
    '',
    '<!-- Written by `npm run docs` from the service\'s own declarations; edit the code, not this file. -->',
    '',
    'Base URL `https://<your host>/v1`. Send a key as `Authorization: Bearer svc_…` (or `x-api-key`) or an OAuth',
    'access token as `Authorization: Bearer …`, and the store environment as `x-store-env-id` on every store-scoped',
    'operation (those whose access below says "store header"; in the OpenAPI document, the security scheme `storeEnv`,',
    'required with the credential, so that `/docs` asks for it once under Authorize). Errors are `{ message, code, requestId }`',
    '(with `errors: [{ path, message }]` for `invalid_request`; RFC 9457 problem details with `Accept: application/problem+json`):',
    'branch on `code`, quote `requestId` to support ([conventions](contract/api-conventions.md#errors)).',
    'Lists answer `{ data, meta: { total, page, limit, totalPages } }` with `?page=` and `?limit=` (at most 100).',
    'The machine-readable contract is `GET /v1/openapi.json` (browsable at `/docs`).',
    'A body field or query parameter an operation does not declare is refused with 400 `invalid_request` naming it',
    '(`querystring.updatedSince is not a known field`), never ignored; an operation without a body refuses one with',
    'fields. Exempt: platform webhooks (`POST /webhooks/{platform}/{storeEnvId}`), unsubscribe links and public',
    'upload URLs, whose parameters are added by others.',
    'A JSON body may be up to 5 MB (`POST /imports`: 48 MB, room for 1,000 items at every maxLength); a larger one',
    'gets 413 `payload_too_large`, after the server has read the rest of it, so that the client sees the answer',
    'rather than a reset connection. Uploads have limits of their own (images 10 MB, videos the size asked for).',
    '',
    '## Scopes',
    '',
    'A key or token with no scopes may do whatever its role allows. Otherwise each scope opens a resource:',
    '`read` (every read), `write` (everything), `<resource>:read`, `<resource>:write` (which includes its read). The',
    'role must allow the operation too: neither widens the other.',
    '',
    '| scope | operations |',
    '|---|---|'
  ]
  for (const resource of RESOURCES) {
    for (const kind of ['read', 'write']) {
      const scope = `${resource}:${kind}`
      const opened = ops.filter(({ op }) => op['x-scope']?.split(' ').includes(scope)).map(({ method, path }) => `\`${method} ${path}\``)
      if (opened.length > 0) lines.push(`| \`${scope}\` | ${opened.join(', ')} |`)
    }
  }
  const reserved = RESOURCES.filter((r) => !ops.some(({ op }) => op['x-scope']?.split(' ').some((one) => one.startsWith(`${r}:`))))
  lines.push('', `Also accepted in scopes, though no operation above names them: ${reserved.map((r) => `\`${r}\``).join(', ')}. Some are checked per item by the operations that serve them (\`events\` and \`webhooks\`: the event log, REST hooks and polling follow the read scope of each event's resource); the rest are the contract's resources still to come.`)
  lines.push('', '## Error codes', '', '| code | status | message | operations that can answer it |', '|---|---|---|---|')
  for (const E of Object.values(errors)) {
    const error = new E()
    const code = error.code.toLowerCase()
    const message = error.message === '%s' ? '(says what was wrong)' : error.message.replaceAll('%s', '…')
    const count = ops.filter(({ op }) => codesOf(op).includes(`${code} ${error.statusCode}`)).length
    lines.push(`| \`${code}\` | ${error.statusCode} | ${message.replaceAll('|', '\\|')} | ${count} |`)
  }
  lines.push('', '## Operations', '', '| operation | summary | access |', '|---|---|---|')
  for (const { method, path, op } of ops) {
    lines.push(`| \`${method} ${path}\` | ${(op.summary ?? '').replaceAll('|', '\\|')} | ${access(op)} |`)
  }
  return lines.join('\n') + '\n'
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync('docs/reference.md', renderReference(await currentDocument()))
  console.log('wrote docs/reference.md')
}
