/**
 * The API's catalogue as this package sees it: the triggers (event types) and the REST operations its action node
 * offers. catalogue.json is written by `npm run n8n:catalogue` (scripts/n8n-catalogue.ts) from the trigger catalogue
 * and the MCP server's tools of the service, and the service's test suite fails when it is stale, so the nodes
 * cannot drift from the API. Nothing here is written by hand but the types.
 */
import catalogueJson from '../catalogue.json'

export interface Trigger {
  /** The event type, e.g. `review.created`. */
  event: string
  label: string
  description: string
  /** The resource whose read scope polling or subscribing needs. */
  resource: string
}

export type FieldType = 'string' | 'number' | 'boolean' | 'options' | 'dateTime' | 'json'

/** One argument of an operation: a path parameter, a query parameter or a field of the JSON body. */
export interface Field {
  name: string
  in: 'path' | 'query' | 'body'
  displayName: string
  type: FieldType
  required: boolean
  description?: string
  /** For `options`: the values the API accepts. */
  options?: string[]
  /** The API also takes null, which an empty value stands for. */
  nullable?: boolean
  integer?: boolean
  minimum?: number
  maximum?: number
}

export interface Operation {
  /** n8n's operation value, e.g. `getAll`. */
  value: string
  name: string
  action: string
  description: string
  /** The MCP tool (and OpenAPI operationId) this operation is. */
  tool: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** With `:name` path parameters, e.g. `/v1/reviews/:id`. */
  path: string
  /** A page envelope `{ data, meta: { page, totalPages } }`: the node offers Return All and Limit. */
  paginated: boolean
  /** A bulk upsert: the body is `{ [property]: items }` with at most `maxItems` per call. */
  bulk?: { property: string, maxItems: number, itemRequired: string[], itemFields: string[] }
  fields: Field[]
}

export interface Resource {
  value: string
  name: string
  operations: Operation[]
}

export interface Catalogue {
  triggers: Trigger[]
  resources: Resource[]
}

export const catalogue: Catalogue = catalogueJson as Catalogue
