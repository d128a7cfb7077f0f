import { Type } from '@sinclair/typebox'
import { authErrors } from '../../schemas.js'
import { createAndPatch, crudSchemas, Nullable, Stamps } from '../content/index.js'

export const PageType = Type.Union([Type.Literal('home'), Type.Literal('product'), Type.Literal('collection'), Type.Literal('custom')])

const PageUrl = Type.String({
  format: 'uri',
  maxLength: 2048,
  description: 'The page\'s http(s) address. Stored as origin and path: the query and fragment are dropped and a trailing slash ' +
    'is removed, so the widget finds the page however it was linked. Unique in the store.'
})

/** docs/contract/resources.md#web-pages: `{ url, title, type: home|product|collection|custom }`. */
const fields = {
  url: PageUrl,
  title: Nullable(Type.String({ maxLength: 300 })),
  type: PageType
}

export const WebPage = Type.Object({
  id: Type.String(),
  url: Type.String(),
  title: Type.Union([Type.String(), Type.Null()]),
  type: PageType,
  ...Stamps
})

export const bodies = createAndPatch(fields, ['url', 'type'], {
  create: { url: 'https://shop.example/products/linen-shirt', title: 'Linen shirt', type: 'product' },
  patch: { title: 'Linen shirt, natural' }
})

export const schemas = crudSchemas('web-pages', 'a web page', WebPage, bodies, {
  type: Type.Optional(PageType)
}, authErrors)
