import { Type } from '@sinclair/typebox'
import { authErrors } from '../../schemas.js'
import { createAndPatch, crudSchemas, Id, ProductRef, Stamps } from '../content/index.js'

export const Widget = Type.Union(['reviews', 'summary', 'gallery', 'faqs', 'badge'].map((w) => Type.Literal(w)))

/** What the widget script reads; nothing else is accepted, so a typo is a 400 rather than a silently ignored key. */
export const Settings = Type.Object({
  productId: Type.Optional({ ...ProductRef, description: 'reviews, summary, badge and faqs: the product shown' }),
  galleryId: Type.Optional({ ...Id, description: 'gallery: the gallery shown, one of this store\'s (another is a 400)' }),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'reviews and gallery: items per page (default 5)' })),
  heading: Type.Optional(Type.String({ maxLength: 200, description: 'A heading above the widget' }))
}, { additionalProperties: false })

/** docs/contract/resources.md#placements: `{ webPageId, widget, selector, settings, enabled }`. */
const fields = {
  webPageId: { ...Id, description: 'The web page the widget is placed on' },
  widget: Widget,
  selector: Type.String({ minLength: 1, maxLength: 300, description: 'CSS selector of the element the widget renders into' }),
  settings: Settings,
  enabled: Type.Boolean({ description: 'Default true' })
}

export const Placement = Type.Object({
  id: Type.String(),
  webPageId: Type.String(),
  widget: Widget,
  selector: Type.String(),
  settings: Settings,
  enabled: Type.Boolean(),
  ...Stamps
})

export const bodies = createAndPatch(fields, ['webPageId', 'widget', 'selector'], {
  create: {
    webPageId: 'page_4kQ9xT1mZb7sW2aaaaaa',
    widget: 'reviews',
    selector: '#reviews',
    settings: { productId: 'sku-1001', pageSize: 5 },
    enabled: true
  },
  patch: { enabled: false }
})

export const schemas = crudSchemas('placements', 'a placement', Placement, bodies, {
  webPageId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  widget: Type.Optional(Widget)
}, authErrors)
