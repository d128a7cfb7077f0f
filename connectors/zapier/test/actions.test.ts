import t from 'tap'
import { App, appTester } from './harness.js'
import { connectZapier } from './oauth-harness.js'

t.test('Create or Update Product creates the product, then replaces it whole on the same platform id', async (t) => {
  const { authData } = await connectZapier(t)
  const perform = App.creates.upsert_product.operation.perform
  const created = await appTester(perform, {
    authData,
    inputData: {
      platformProductId: 'sku-1',
      title: 'Merino Crew',
      url: 'https://shop.example/p/sku-1',
      imageUrl: 'https://cdn.shop.example/sku-1.jpg'
    }
  })
  t.match(created, {
    platformProductId: 'sku-1',
    title: 'Merino Crew',
    url: 'https://shop.example/p/sku-1',
    excludedFromReviewRequests: false
  })
  const replaced = await appTester(perform, {
    authData,
    inputData: { platformProductId: 'sku-1', title: 'Merino Crew Sweater', excludedFromReviewRequests: true, exclusionReason: 'gift card' }
  })
  t.match(replaced, {
    platformProductId: 'sku-1',
    title: 'Merino Crew Sweater',
    url: null,
    imageUrl: null,
    excludedFromReviewRequests: true,
    exclusionReason: 'gift card'
  })
})

t.test('Create or Update Product reports the API\'s per-item error instead of succeeding', async (t) => {
  const { authData } = await connectZapier(t)
  await t.rejects(
    appTester(App.creates.upsert_product.operation.perform, { authData, inputData: { platformProductId: 'sku-2', url: 'not a url' } }),
    { message: /url/i }
  )
})

t.test('a review written on the storefront reaches New Review, and Reply to Review answers it', async (t) => {
  const { app, tenant, authData } = await connectZapier(t)
  await appTester(App.creates.upsert_product.operation.perform, {
    authData,
    inputData: { platformProductId: 'sku-9', title: 'Trail Shoe' }
  })
  const submitted = await app.inject({
    method: 'POST',
    url: '/v1/reviews',
    headers: { origin: 'https://shop.example', 'x-store-env-id': tenant.storeId },
    payload: {
      productId: 'sku-9',
      rating: 4,
      title: 'Comfortable',
      body: 'Good grip on wet rock.',
      authorName: 'Sam L.',
      authorEmail: 'sam.lee@example.com'
    }
  })
  t.equal(submitted.statusCode, 201)
  const [item] = await appTester(App.triggers.new_review.operation.perform, { authData })
  t.match(item, { id: /^evt_/, reviewId: submitted.json().id, productId: 'sku-9', rating: 4, authorEmailLast4: '.com' })
  t.notOk(JSON.stringify(item).includes('sam.lee'), 'the reviewer\'s address stays masked')

  const replied = await appTester(App.creates.reply_to_review.operation.perform, {
    authData,
    inputData: { reviewId: item.reviewId, reply: 'Thanks, Sam!', publish: true }
  })
  t.match(replied, { id: item.reviewId, status: 'published', reply: { body: 'Thanks, Sam!' } })
})

t.test('Reply to Review for an id the store does not have fails with the API\'s not_found', async (t) => {
  const { authData } = await connectZapier(t)
  await t.rejects(
    appTester(App.creates.reply_to_review.operation.perform, { authData, inputData: { reviewId: 'rev_notinthisstore', reply: 'Hi' } }),
    { message: /not found/i }
  )
})
