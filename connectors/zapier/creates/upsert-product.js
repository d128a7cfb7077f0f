'use strict'

const { apiUrl } = require('../lib/api')
const samples = require('../lib/samples')

/**
 * `PUT /v1/products` replaces the whole product (docs/contract/api-conventions.md#bulk-upserts): an omitted field is
 * cleared, so the action sends every field, empty ones as null. The bulk answer is 200 even when the item failed, hence
 * the check.
 */
const perform = async (z, bundle) => {
  const input = bundle.inputData
  const item = {
    platformProductId: String(input.platformProductId),
    title: input.title || null,
    url: input.url || null,
    imageUrl: input.imageUrl || null,
    excludedFromReviewRequests: input.excludedFromReviewRequests === true || input.excludedFromReviewRequests === 'true',
    exclusionReason: input.exclusionReason || null
  }
  const response = await z.request({ method: 'PUT', url: apiUrl('/products'), body: { products: [item] } })
  const result = response.data
  if (result.failed > 0) {
    const [failure] = result.errors
    throw new z.errors.Error(failure.message, failure.code, 400)
  }
  const product = await z.request({ url: apiUrl(`/products/${encodeURIComponent(item.platformProductId)}`) })
  return product.data
}

module.exports = {
  key: 'upsert_product',
  noun: 'Product',
  display: {
    label: 'Create or Update Product',
    description: 'Creates a product, or replaces the product with the same platform product ID.'
  },
  operation: {
    inputFields: [
      {
        key: 'platformProductId',
        label: 'Platform product ID',
        required: true,
        helpText: 'Your shop platform\'s id for the product; the same id updates the same product.'
      },
      { key: 'title', label: 'Title' },
      { key: 'url', label: 'Product page URL' },
      { key: 'imageUrl', label: 'Image URL' },
      { key: 'excludedFromReviewRequests', label: 'Exclude from review requests', type: 'boolean', default: 'false' },
      { key: 'exclusionReason', label: 'Exclusion reason', helpText: 'Recorded on every review request skipped because of this product.' }
    ],
    perform,
    sample: samples.product,
    outputFields: [
      { key: 'platformProductId', label: 'Platform product ID' },
      { key: 'title', label: 'Title' },
      { key: 'url', label: 'Product page URL' },
      { key: 'excludedFromReviewRequests', label: 'Excluded from review requests', type: 'boolean' },
      { key: 'updatedAt', label: 'Updated at', type: 'datetime' }
    ]
  }
}
