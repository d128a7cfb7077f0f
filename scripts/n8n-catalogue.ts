/**
 * `npm run n8n:catalogue`: writes connectors/n8n/nodes/catalogue.json, the list the n8n nodes are built from: every
 * trigger of the connector catalogue (src/modules/connectors/catalogue.ts) and, for the action node, the operations
 * chosen below, each described from its MCP tool (src/modules/mcp/tools.ts: the route's own schema). The only hand
 * list is which tools the action node offers and under which n8n resource; connectors/n8n/test/catalogue.test.ts
 * fails when the committed file is not what this writes now.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { TRIGGERS } from '../src/modules/connectors/catalogue.js'
import { toolsFor, type ToolSpec } from '../src/modules/mcp/tools.js'
import { operationsOf } from '../src/modules/mcp/catalogue.js'
import type { Catalogue, Field, FieldType, Operation, Resource } from '../connectors/n8n/nodes/shared/catalogue.js'
import { withGenerationApp } from './generation-app.js'

export const CATALOGUE_FILE = fileURLToPath(new URL('../connectors/n8n/nodes/catalogue.json', import.meta.url))

interface Choice {
  value: string
  tool: string
  name?: string
  action?: string
  /** The body fields this operation sets (others of the tool's body are left out), e.g. a review's `status` alone. */
  body?: string[]
}

/** What a store automation needs (issue 48): the action node's resources, each operation one MCP tool. */
const ACTIONS: Array<{ value: string, name: string, operations: Choice[] }> = [
  {
    value: 'review',
    name: 'Review',
    operations: [
      { value: 'getAll', tool: 'list_reviews' },
      { value: 'get', tool: 'get_review' },
      { value: 'updateStatus', tool: 'update_review', name: 'Update Status', action: 'Update the status of a review', body: ['status'] },
      { value: 'reply', tool: 'update_review', name: 'Reply', action: 'Reply to a review', body: ['reply'] },
      { value: 'delete', tool: 'delete_review' }
    ]
  },
  {
    value: 'product',
    name: 'Product',
    operations: [
      { value: 'upsert', tool: 'upsert_products' },
      { value: 'getAll', tool: 'list_products' },
      { value: 'get', tool: 'get_product' }
    ]
  },
  {
    value: 'order',
    name: 'Order',
    operations: [
      { value: 'upsert', tool: 'upsert_orders' },
      { value: 'getAll', tool: 'list_orders' },
      { value: 'get', tool: 'get_order' }
    ]
  },
  {
    value: 'customer',
    name: 'Customer',
    operations: [
      { value: 'upsert', tool: 'upsert_customers' },
      { value: 'getAll', tool: 'list_customers' },
      { value: 'get', tool: 'get_customer' }
    ]
  },
  {
    value: 'loyaltyAccount',
    name: 'Loyalty Account',
    operations: [
      {
        value: 'addTransaction',
        tool: 'create_loyalty_account_transaction',
        name: 'Add Points Transaction',
        action: 'Add or deduct loyalty points'
      },
      { value: 'getAll', tool: 'list_loyalty_accounts' },
      { value: 'get', tool: 'get_loyalty_account' }
    ]
  },
  {
    value: 'outboundWebhook',
    name: 'Outbound Webhook',
    operations: [
      { value: 'getAll', tool: 'list_outbound_webhooks' },
      {
        value: 'getDeliveries',
        tool: 'list_outbound_webhook_deliveries',
        name: 'Get Deliveries',
        action: 'Get the deliveries of an outbound webhook'
      },
      {
        value: 'redeliver',
        tool: 'create_outbound_webhook_delivery_redeliver',
        name: 'Redeliver',
        action: 'Send a delivery of an outbound webhook again'
      }
    ]
  }
]

/** n8n's usual names for the usual operations, and the sentence its action list shows. */
const NAMES: Record<string, { name: string, action: (plural: string, one: string) => string }> = {
  getAll: { name: 'Get Many', action: (plural) => `Get many ${plural}` },
  get: { name: 'Get', action: (_plural, one) => `Get ${article(one)} ${one}` },
  upsert: { name: 'Create or Update Many', action: (plural) => `Create or update ${plural}` },
  delete: { name: 'Delete', action: (_plural, one) => `Delete ${article(one)} ${one}` }
}

function article (noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'an' : 'a'
}

/** Query parameters the node handles itself: pagination (Return All, Limit). */
const PAGINATION = new Set(['page', 'limit', 'cursor'])

type JsonSchema = Record<string, unknown>

function variantsOf (schema: JsonSchema): JsonSchema[] {
  return Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]).flatMap(variantsOf) : [schema]
}

function displayNameOf (name: string, resource: string): string {
  if (name === 'id') return `${resource} ID`
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' ')
  return words.map((word) => word === 'Id' ? 'ID' : word[0].toUpperCase() + word.slice(1)).join(' ')
}

/** The values a schema allows, when it lists them (`enum`, or TypeBox's literal `const`). */
function valuesOf (schema: JsonSchema): string[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum as string[]
  return typeof schema.const === 'string' ? [schema.const] : undefined
}

function fieldTypeOf (variants: JsonSchema[]): { type: FieldType, options?: string[], integer?: boolean } {
  if (variants.length > 0 && variants.every((v) => valuesOf(v))) return { type: 'options', options: variants.flatMap((v) => valuesOf(v)!) }
  if (variants.length !== 1) return { type: 'json' }
  const [only] = variants
  if (only.type === 'string') return { type: only.format === 'date-time' ? 'dateTime' : 'string' }
  if (only.type === 'integer' || only.type === 'number') return { type: 'number', ...(only.type === 'integer' ? { integer: true } : {}) }
  if (only.type === 'boolean') return { type: 'boolean' }
  return { type: 'json' }
}

function fieldOf (name: string, schema: JsonSchema, place: Field['in'], required: boolean, resource: string): Field {
  const variants = variantsOf(schema)
  const nonNull = variants.filter((v) => v.type !== 'null')
  const { type, options, integer } = fieldTypeOf(nonNull)
  const field: Field = { name, in: place, displayName: displayNameOf(name, resource), type, required }
  const description = schema.description ?? nonNull.find((v) => typeof v.description === 'string')?.description
  if (typeof description === 'string') field.description = description
  if (options) field.options = options
  if (nonNull.length < variants.length) field.nullable = true
  if (integer) field.integer = true
  const bounds = nonNull.length === 1 ? nonNull[0] : {}
  if (typeof bounds.minimum === 'number') field.minimum = bounds.minimum
  if (typeof bounds.maximum === 'number') field.maximum = bounds.maximum
  return field
}

/** A body `{ products: [ … ] }` with a most-items limit: the node batches its input items into such calls. */
function bulkOf (body: JsonSchema | undefined): Operation['bulk'] {
  const properties = (body?.properties ?? {}) as Record<string, JsonSchema>
  const names = Object.keys(properties)
  if (names.length !== 1) return undefined
  const list = properties[names[0]]
  const items = list.items as JsonSchema | undefined
  if (list.type !== 'array' || typeof list.maxItems !== 'number' || items?.type !== 'object') return undefined
  const itemRequired = (items.required as string[]) ?? []
  return { property: names[0], maxItems: list.maxItems, itemRequired, itemFields: Object.keys(items.properties as JsonSchema) }
}

function isPaged (tool: ToolSpec): boolean {
  const output = tool.outputSchema?.properties as Record<string, JsonSchema> | undefined
  const meta = output?.meta?.properties as Record<string, JsonSchema> | undefined
  return tool.query.includes('page') && output?.data?.type === 'array' && meta?.totalPages !== undefined
}

function operationOf (choice: Choice, tool: ToolSpec, resource: { name: string, plural: string }): Operation {
  const { operation: route, inputSchema } = tool
  const properties = inputSchema.properties as Record<string, JsonSchema>
  const required = new Set((inputSchema.required as string[] | undefined) ?? [])
  const body = JSON.parse(JSON.stringify(route.schema?.body ?? null)) as JsonSchema | null
  const bulk = bulkOf(body ?? undefined)
  if (tool.bodyArgument && !bulk) {
    throw new Error(`${tool.name}: its body fields clash with its parameters, which the n8n node does not offer`)
  }
  const bodyNames = bulk || !body
    ? []
    : Object.keys((body.properties ?? {}) as JsonSchema).filter((name) => !choice.body || choice.body.includes(name))
  const fields = [
    ...tool.params.map((name) => fieldOf(name, properties[name], 'path', true, resource.name)),
    ...bodyNames.map((name) =>
      fieldOf(name, properties[name], 'body', required.has(name) || (choice.body?.includes(name) ?? false), resource.name)
    ),
    ...tool.query.filter((name) => !PAGINATION.has(name)).map((name) =>
      fieldOf(name, properties[name], 'query', required.has(name), resource.name)
    )
  ]
  const named = NAMES[choice.value]
  const one = resource.name.toLowerCase()
  return {
    value: choice.value,
    name: choice.name ?? named.name,
    action: choice.action ?? named.action(resource.plural, one),
    description: tool.title,
    tool: tool.name,
    method: route.method as Operation['method'],
    path: route.url,
    paginated: isPaged(tool),
    ...(bulk ? { bulk } : {}),
    fields
  }
}

/** The catalogue from the service's tools and triggers: what catalogue.json must hold. */
export function n8nCatalogue (tools: Map<string, ToolSpec>): Catalogue {
  const resources: Resource[] = ACTIONS.map(({ value, name, operations }) => {
    const plural = `${name.toLowerCase()}s`
    return {
      value,
      name,
      operations: operations.map((choice) => {
        const tool = tools.get(choice.tool)
        if (!tool) throw new Error(`the n8n action ${value}.${choice.value} names the tool ${choice.tool}, which the API no longer has`)
        return operationOf(choice, tool, { name, plural })
      })
    }
  })
  const triggers = TRIGGERS.map(({ key, label, description, resource }) => ({ event: key, label, description, resource }))
  return { triggers, resources }
}

export function catalogueText (catalogue: Catalogue): string {
  return JSON.stringify(catalogue, null, 2) + '\n'
}

/** The catalogue of an app that is ready (its routes registered). */
export function catalogueOfApp (app: Parameters<typeof operationsOf>[0]): Catalogue {
  return n8nCatalogue(toolsFor(operationsOf(app)))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const catalogue = await withGenerationApp('http://127.0.0.1:3000', catalogueOfApp)
  writeFileSync(CATALOGUE_FILE, catalogueText(catalogue))
  console.log(`wrote ${CATALOGUE_FILE}`)
}
