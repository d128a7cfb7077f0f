/**
 * One name per REST operation, from its method and path: the MCP tool's name and the OpenAPI operationId, so an
 * integrator meets the same name in generated clients and in agent hosts.
 */
type JsonSchema = Record<string, unknown>

function propertiesOf (schema: JsonSchema | undefined): Record<string, JsonSchema> {
  return (schema?.properties as Record<string, JsonSchema> | undefined) ?? {}
}

function singular (word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`
  if (word.endsWith('sses')) return word.slice(0, -2)
  if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1)
  return word
}

/** A GET that answers an array, or an object holding one (a page, a cursor's batch), lists. */
function isList (schema: JsonSchema | undefined): boolean {
  if (!schema) return true
  return Object.values(propertiesOf(schema)).some((property) => property.type === 'array')
}

function verbOf (method: string, endsWithParam: boolean, hasParams: boolean, output: JsonSchema | undefined): string {
  switch (method) {
    case 'GET': return !endsWithParam && isList(output) ? 'list' : 'get'
    case 'POST': return 'create'
    case 'PUT': return hasParams ? 'replace' : 'upsert'
    case 'PATCH': return 'update'
    case 'DELETE': return 'delete'
    default: return method.toLowerCase()
  }
}

/**
 * `GET /v1/reviews` -> list_reviews, `GET /v1/reviews/:id` -> get_review, `PUT /v1/products` -> upsert_products,
 * `POST /v1/api-keys` -> create_api_key, `GET /v1/outbound-webhooks/:id/deliveries` -> list_outbound_webhook_deliveries.
 * A segment followed by a parameter names one item; a created thing is one item.
 */
export function operationName (method: string, url: string, output?: JsonSchema): string {
  const segments = url.replace(/^\/v1\//, '').split('/').filter(Boolean)
  const words: string[] = []
  segments.forEach((segment, i) => {
    if (segment.startsWith(':')) return
    const one = segments[i + 1]?.startsWith(':') || (method === 'POST' && i === segments.length - 1)
    words.push(one ? singular(segment) : segment)
  })
  const verb = verbOf(method, segments.at(-1)?.startsWith(':') ?? false, segments.some((s) => s.startsWith(':')), output)
  return [verb, ...words].join('_').replace(/[^a-zA-Z0-9_]/g, '_')
}
