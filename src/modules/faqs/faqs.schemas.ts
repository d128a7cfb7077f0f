import { Type } from '@sinclair/typebox'
import { authErrors } from '../../schemas.js'
import { createAndPatch, crudSchemas, Id, Nullable, ProductRef, PublishStatus, Stamps } from '../content/index.js'

/**
 * docs/contract/resources.md#faqs: `{ question, answer, productId?, categoryId?, status: draft|published, position }`.
 */
const fields = {
  question: Type.String({ minLength: 1, maxLength: 500 }),
  answer: Type.String({ minLength: 1, maxLength: 10_000 }),
  productId: Nullable(ProductRef),
  categoryId: Nullable({ ...Id, description: 'A category of this store' }),
  status: { ...PublishStatus, description: 'Only published FAQs are shown on the storefront; default draft' },
  position: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Storefront order, lowest first; default 0' })
}

export const Faq = Type.Object({
  id: Type.String(),
  question: Type.String(),
  answer: Type.String(),
  productId: Type.Union([Type.String(), Type.Null()]),
  categoryId: Type.Union([Type.String(), Type.Null()]),
  status: PublishStatus,
  position: Type.Integer(),
  ...Stamps
})

export const bodies = createAndPatch(fields, ['question', 'answer'], {
  create: {
    question: 'How long does delivery take?',
    answer: 'Two to four working days in the EU.',
    productId: 'sku-1001',
    status: 'published',
    position: 1
  },
  patch: { status: 'published' }
})

export const schemas = crudSchemas('faqs', 'an FAQ', Faq, bodies, {
  productId: Type.Optional(ProductRef),
  status: Type.Optional(PublishStatus)
}, authErrors)
