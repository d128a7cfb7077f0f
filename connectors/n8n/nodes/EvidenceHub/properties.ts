import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow'
import type { Catalogue, Field, Operation, Resource } from '../shared/catalogue'

/**
 * The action node's parameters, made from the catalogue (catalogue.json): a Resource, an Operation per resource, and
 * for each operation its path parameters and required body fields, its optional body fields ("Additional Fields"),
 * its query filters ("Filters"), Return All and Limit for a paged list, and the records of a bulk upsert.
 */

/** `pending` → `Pending`, `order.review_request.updated` stays as it is. */
function labelOf (value: string): string {
  return /^[a-z]+$/.test(value) ? value[0].toUpperCase() + value.slice(1) : value
}

function show (resource: Resource, operation: Operation, extra: Record<string, unknown[]> = {}): INodeProperties['displayOptions'] {
  return { show: { resource: [resource.value], operation: [operation.value], ...extra } }
}

function describe (field: Field): string | undefined {
  const parts = [field.description, field.nullable && field.in === 'body' ? 'Empty removes it.' : undefined].filter(Boolean)
  return parts.length > 0 ? parts.join(' ') : undefined
}

/** One field as an n8n parameter (no display options: the caller places it). */
export function propertyOf (field: Field): INodeProperties {
  const base = { displayName: field.displayName, name: field.name, required: field.required || undefined, description: describe(field) }
  switch (field.type) {
    case 'number': {
      const typeOptions: INodeProperties['typeOptions'] = {}
      if (field.minimum !== undefined) typeOptions.minValue = field.minimum
      if (field.maximum !== undefined) typeOptions.maxValue = field.maximum
      if (field.integer) typeOptions.numberPrecision = 0
      return { ...base, type: 'number', typeOptions, default: field.minimum !== undefined && field.minimum > 0 ? field.minimum : 0 }
    }
    case 'boolean':
      return { ...base, type: 'boolean', default: false }
    case 'options': {
      const options: INodePropertyOptions[] = (field.options ?? []).map((value) => ({ name: labelOf(value), value }))
      return { ...base, type: 'options', options, default: options[0]?.value ?? '' }
    }
    case 'dateTime':
      return { ...base, type: 'dateTime', default: '' }
    case 'json':
      return { ...base, type: 'json', default: '{}' }
    default:
      return { ...base, type: 'string', default: '' }
  }
}

function operationProperty (resource: Resource): INodeProperties {
  return {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: [resource.value] } },
    options: resource.operations.map((operation) => ({
      name: operation.name,
      value: operation.value,
      action: operation.action,
      description: operation.description
    })),
    default: resource.operations[0].value
  }
}

function bulkProperty (resource: Resource, operation: Operation): INodeProperties {
  const bulk = operation.bulk!
  const fields = bulk.itemFields.map((name) => bulk.itemRequired.includes(name) ? `${name} (required)` : name).join(', ')
  return {
    displayName: labelOf(bulk.property),
    name: bulk.property,
    type: 'json',
    required: true,
    default: '={{ $json }}',
    displayOptions: show(resource, operation),
    description: `The ${bulk.property} to create or replace: each input item gives one (or a list), sent in batches of ` +
      `${bulk.maxItems}. Fields: ${fields}. Each replaces the stored record whole; unknown fields are refused.`
  }
}

function pagingProperties (resource: Resource, operation: Operation): INodeProperties[] {
  return [
    {
      displayName: 'Return All',
      name: 'returnAll',
      type: 'boolean',
      default: false,
      displayOptions: show(resource, operation),
      description: 'Whether to return all results or only up to a given limit'
    },
    {
      displayName: 'Limit',
      name: 'limit',
      type: 'number',
      typeOptions: { minValue: 1 },
      default: 50,
      displayOptions: show(resource, operation, { returnAll: [false] }),
      description: 'Max number of results to return'
    }
  ]
}

function collection (name: string, displayName: string, fields: Field[], resource: Resource, operation: Operation): INodeProperties[] {
  if (fields.length === 0) return []
  return [{
    displayName,
    name,
    type: 'collection',
    placeholder: `Add ${displayName.replace(/s$/, '')}`,
    default: {},
    displayOptions: show(resource, operation),
    options: fields.map((field) => ({ ...propertyOf(field), required: undefined }))
  }]
}

function operationFields (resource: Resource, operation: Operation): INodeProperties[] {
  const required = operation.fields.filter((field) => field.required)
  return [
    ...required.map((field) => ({ ...propertyOf(field), displayOptions: show(resource, operation) })),
    ...(operation.bulk ? [bulkProperty(resource, operation)] : []),
    ...(operation.paginated ? pagingProperties(resource, operation) : []),
    ...collection(
      'additionalFields',
      'Additional Fields',
      operation.fields.filter((field) => !field.required && field.in === 'body'),
      resource,
      operation
    ),
    ...collection('filters', 'Filters', operation.fields.filter((field) => !field.required && field.in === 'query'), resource, operation)
  ]
}

/** Every parameter of the action node but Authentication. */
export function actionProperties (catalogue: Catalogue): INodeProperties[] {
  const resource: INodeProperties = {
    displayName: 'Resource',
    name: 'resource',
    type: 'options',
    noDataExpression: true,
    options: catalogue.resources.map(({ name, value }) => ({ name, value })),
    default: catalogue.resources[0].value
  }
  return [
    resource,
    ...catalogue.resources.map(operationProperty),
    ...catalogue.resources.flatMap((r) => r.operations.flatMap((operation) => operationFields(r, operation)))
  ]
}
