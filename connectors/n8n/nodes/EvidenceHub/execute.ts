import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow'
import { NodeOperationError } from 'n8n-workflow'
import type { Field, Operation } from '../shared/catalogue'
import { apiRequest, listAll, pathWith } from '../shared/transport'

/** A parameter's value as the API takes it: an empty value of a field the API lets be null is null. */
function valueOf (field: Field, value: unknown): unknown {
  if (field.nullable && value === '') return null
  if (field.type === 'json' && typeof value === 'string') return JSON.parse(value)
  return value
}

/** The path, querystring and body of one call, from the parameters of item `i`. */
export function requestOf (ctx: IExecuteFunctions, operation: Operation, i: number) {
  const values: Record<string, unknown> = {}
  const qs: IDataObject = {}
  const body: IDataObject = {}
  const optional = {
    body: ctx.getNodeParameter('additionalFields', i, {}) as IDataObject,
    query: ctx.getNodeParameter('filters', i, {}) as IDataObject
  }
  for (const field of operation.fields) {
    let value: unknown
    if (field.required) value = ctx.getNodeParameter(field.name, i)
    else if (field.in !== 'path' && field.name in optional[field.in]) value = optional[field.in][field.name]
    else continue
    if (field.in === 'path') values[field.name] = value
    else (field.in === 'query' ? qs : body)[field.name] = valueOf(field, value) as IDataObject[string]
  }
  const hasBody = operation.fields.some((field) => field.in === 'body')
  return { path: pathWith(operation.path, values), qs, body: hasBody ? body : undefined }
}

/** The answer of one call as output items: a list's records, the object, or `{ success: true }` for a 204. */
function itemsOf (answer: unknown, i: number): INodeExecutionData[] {
  const records = Array.isArray(answer) ? answer : [answer === undefined || answer === '' ? { success: true } : answer]
  return records.map((json) => ({ json: json as IDataObject, pairedItem: { item: i } }))
}

/** One item's call (or, for a paged list, its calls). */
export async function runOne (ctx: IExecuteFunctions, operation: Operation, i: number): Promise<INodeExecutionData[]> {
  const { path, qs, body } = requestOf(ctx, operation, i)
  if (operation.paginated) {
    const limit = ctx.getNodeParameter('returnAll', i, false) ? 'all' : ctx.getNodeParameter('limit', i, 50) as number
    const records = await listAll(ctx, path, qs, limit, i)
    return records.map((json) => ({ json, pairedItem: { item: i } }))
  }
  return itemsOf(await apiRequest(ctx, operation.method, path, { qs, body, itemIndex: i }), i)
}

/** The records the input items give a bulk upsert: an object each, or a list of them, or their JSON text. */
function recordsOf (ctx: IExecuteFunctions, property: string, count: number): Array<{ record: IDataObject, item: number }> {
  const records: Array<{ record: IDataObject, item: number }> = []
  for (let item = 0; item < count; item++) {
    let value = ctx.getNodeParameter(property, item) as unknown
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value)
      } catch {
        throw new NodeOperationError(ctx.getNode(), `${property} is not valid JSON`, { itemIndex: item })
      }
    }
    const list = Array.isArray(value) ? value : [value]
    for (const record of list) {
      if (record === null || typeof record !== 'object' || Array.isArray(record)) {
        throw new NodeOperationError(ctx.getNode(), `each of the ${property} must be an object`, { itemIndex: item })
      }
      records.push({ record: record as IDataObject, item })
    }
  }
  return records
}

/**
 * A bulk upsert of every input item's records, in batches of the API's most items per call. One output item per
 * batch: the API's `{ received, upserted, failed, errors }`, each error's `index` counted among all the records
 * this run sent (the API counts within its batch). Check `failed`: a bad record does not stop the others.
 */
export async function runBulk (ctx: IExecuteFunctions, operation: Operation, count: number): Promise<INodeExecutionData[]> {
  const { property, maxItems } = operation.bulk!
  const records = recordsOf(ctx, property, count)
  const out: INodeExecutionData[] = []
  for (let start = 0; start < records.length; start += maxItems) {
    const batch = records.slice(start, start + maxItems)
    const pairedItem = [...new Set(batch.map(({ item }) => item))].map((item) => ({ item }))
    try {
      const body = { [property]: batch.map(({ record }) => record) }
      const answer = await apiRequest(ctx, operation.method, operation.path, { body, itemIndex: batch[0].item }) as IDataObject
      const errors = (answer.errors as IDataObject[] | undefined ?? []).map((error) => ({ ...error, index: Number(error.index) + start }))
      out.push({ json: { ...answer, errors }, pairedItem })
    } catch (error) {
      if (!ctx.continueOnFail()) throw error
      out.push({ json: { error: (error as Error).message }, pairedItem })
    }
  }
  return out
}
