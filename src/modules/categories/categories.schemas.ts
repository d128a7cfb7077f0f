import { Type } from '@sinclair/typebox'
import { authErrors } from '../../schemas.js'
import { createAndPatch, crudSchemas, Id, Nullable, Stamps } from '../content/index.js'

/**
 * docs/contract/resources.md#categories: `{ name, slug, parentId? }`, a tree (a parent may not be the category or below
 * it).
 */
const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  slug: Type.String({
    minLength: 1,
    maxLength: 191,
    pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
    description: 'Lower-case letters, digits and single hyphens; unique in the store'
  }),
  parentId: Nullable({ ...Id, description: 'The parent category; null for a top-level one' })
}

export const Category = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  parentId: Type.Union([Type.String(), Type.Null()]),
  ...Stamps
})

export const bodies = createAndPatch(fields, ['name', 'slug'], {
  create: { name: 'Shirts', slug: 'shirts', parentId: null },
  patch: { parentId: 'cat_4kQ9xT1mZb7sW2aaaaaa' }
})

export const schemas = crudSchemas('categories', 'a category', Category, bodies, {
  parentId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only the children of this category' }))
}, authErrors)
