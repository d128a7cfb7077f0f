/**
 * The copy of the OpenAPI document the browsable reference at /docs loads (its /docs/json), written as OpenAPI 3.0.
 *
 * Swagger UI resolves a 3.1 document with ApiDOM, which turns the whole document into its own element tree before it
 * shows anything, and again for each operation opened: on this document (~1 MB, 170 operations) that kept /docs blank
 * for 10 s and more. A 3.0 document goes through its older resolver, which resolves only what is shown. The two
 * versions differ here only in how a schema says "or null" (3.1: `anyOf: [X, { type: 'null' }]`; 3.0:
 * `nullable: true`), so the copy rewrites that and its version; it also writes each error response once (below). The
 * contract stays the 3.1 document at GET /v1/openapi.json, which the SDK, connectors and agents read.
 */

type Json = unknown

function isNull (schema: Json): boolean {
  return Boolean(schema) && typeof schema === 'object' && (schema as { type?: unknown }).type === 'null'
}

/** A schema (or any part of the document) with each `{ type: 'null' }` alternative turned into `nullable: true`. */
function nullableAsIn30 (node: Json): Json {
  if (Array.isArray(node)) return node.map(nullableAsIn30)
  if (!node || typeof node !== 'object') return node
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(node)) out[key] = nullableAsIn30(value)
  for (const key of ['anyOf', 'oneOf']) {
    const alternatives = out[key]
    if (!Array.isArray(alternatives) || !alternatives.some(isNull)) continue
    const rest = alternatives.filter((alternative) => !isNull(alternative))
    delete out[key]
    // `anyOf: [X, null]` is X, nullable; with several others left, they stay alternatives, and the whole is nullable.
    const [only] = rest
    if (rest.length === 1 && only && typeof only === 'object') {
      for (const [name, value] of Object.entries(only)) if (!(name in out)) out[name] = value
    } else out[key] = rest
    out.nullable = true
  }
  return out
}

/**
 * Each error response written once under components.responses and referred to by the operations that give it: the
 * document repeats the same few dozen (the pipeline's 401, 403, 429, ...) over a thousand times, two thirds of its size,
 * all of which the page would otherwise parse and keep before showing anything. Swagger UI resolves a reference when
 * its operation is opened, so each is shown in full there.
 */
function sharedErrorResponses (doc: Record<string, unknown>): Record<string, unknown> {
  const shared = new Map<string, string>()
  const responses: Record<string, Json> = {}
  const paths: Record<string, Json> = {}
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    paths[path] = Object.fromEntries(Object.entries(item).map(([method, operation]) => {
      const own = (operation as { responses?: Record<string, Json> }).responses
      if (!own) return [method, operation]
      const referred = Object.fromEntries(Object.entries(own).map(([status, response]) => {
        if (Number(status) < 400) return [status, response]
        const text = JSON.stringify(response)
        let name = shared.get(text)
        if (!name) {
          name = `Error${status}_${shared.size + 1}`
          shared.set(text, name)
          responses[name] = response
        }
        return [status, { $ref: `#/components/responses/${name}` }]
      }))
      return [method, { ...operation as object, responses: referred }]
    }))
  }
  const components = (doc.components ?? {}) as Record<string, unknown>
  return { ...doc, paths, components: { ...components, responses: { ...components.responses as object, ...responses } } }
}

/**
 * The document as /docs loads it: the same operations, in OpenAPI 3.0, each error response written once, and served
 * by the origin the page came from ("Try it out" calls it; PUBLIC_URL, if the page was reached another way, would be
 * another origin, which a browser does not let the page call with a credential).
 */
export function documentForSwaggerUi (doc: Record<string, unknown>): Record<string, unknown> {
  return { ...sharedErrorResponses(nullableAsIn30(doc) as Record<string, unknown>), openapi: '3.0.3', servers: [{ url: '/' }] }
}
