import { Type, type TProperties } from '@sinclair/typebox'
import { DateTime, IdParams, PageQuery } from '../../schemas.js'

/** Schema pieces the content resources share (docs/contract/resources.md#content). */
export const SinceQuery = {
  ...PageQuery,
  updatedSince: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Only rows changed at or after this instant; lists are ordered by updatedAt, then id, oldest first'
    })
  )
}

export const Stamps = { createdAt: DateTime, updatedAt: DateTime }

export const Id = Type.String({ minLength: 1, maxLength: 64 })
export const ProductRef = Type.String({ minLength: 1, maxLength: 191, description: 'A platformProductId' })
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])
export const PublishStatus = Type.Union([Type.Literal('draft'), Type.Literal('published')])

/** A body for POST (the required fields required) and its PATCH twin (every field optional, at least one). */
export function createAndPatch<T extends TProperties> (
  properties: T,
  required: Array<keyof T>,
  examples: { create: unknown, patch: unknown }
) {
  const create = Type.Object(
    Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, required.includes(k) ? v : Type.Optional(v)])) as T,
    { additionalProperties: false, examples: [examples.create] }
  )
  const patch = Type.Partial(Type.Object(properties), { additionalProperties: false, minProperties: 1, examples: [examples.patch] })
  return { create, patch }
}

/** The five operations of a content resource, named for the OpenAPI document. */
export function crudSchemas<R extends Parameters<typeof Type.Array>[0]> (
  tag: string,
  noun: string,
  record: R,
  bodies: { create: ReturnType<typeof Type.Object>, patch: ReturnType<typeof Type.Object> },
  filters: TProperties,
  errors: Record<number, unknown>
) {
  const Paged = Type.Object({
    data: Type.Array(record),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer(), totalPages: Type.Integer() })
  })
  return {
    create: {
      tags: [tag],
      summary: `Create ${noun}`,
      description: `Appends \`${singularOf(tag)}.created\`.`,
      body: bodies.create,
      response: { 201: record, ...errors }
    },
    list: {
      tags: [tag],
      summary: `List ${tag.replace('-', ' ')}, oldest change first`,
      querystring: Type.Object({ ...SinceQuery, ...filters }),
      response: { 200: Paged, ...errors }
    },
    get: { tags: [tag], summary: `One ${noun.replace(/^an? /, '')}`, params: IdParams, response: { 200: record, ...errors } },
    update: {
      tags: [tag],
      summary: `Change ${noun.replace(/^an? /, 'a ')}; only the fields sent change`,
      description: `Appends \`${singularOf(tag)}.updated\` when something changed.`,
      params: IdParams,
      body: bodies.patch,
      response: { 200: record, ...errors }
    },
    remove: {
      tags: [tag],
      summary: `Delete ${noun.replace(/^an? /, 'a ')}`,
      description: `Appends \`${singularOf(tag)}.deleted\`.`,
      params: IdParams,
      response: { 204: Type.Null(), ...errors }
    }
  }
}

/** `web-pages` -> `web_page`, `galleries` -> `gallery`, `faqs` -> `faq`. */
export function singularOf (resource: string): string {
  const base = resource.replace(/-/g, '_')
  if (base.endsWith('ies')) return `${base.slice(0, -3)}y`
  return base.endsWith('s') ? base.slice(0, -1) : base
}
