'use strict'

const { pollingTrigger, hookTrigger } = require('./events')
const samples = require('../lib/samples')

const reviewFields = [
  { key: 'id', label: 'Event ID' },
  { key: 'reviewId', label: 'Review ID' },
  { key: 'productId', label: 'Product ID (platform)' },
  { key: 'orderId', label: 'Order ID (platform)' },
  { key: 'rating', label: 'Rating', type: 'integer' },
  { key: 'title', label: 'Title' },
  { key: 'body', label: 'Review text' },
  { key: 'authorName', label: 'Author name' },
  { key: 'verified', label: 'Verified buyer', type: 'boolean' },
  { key: 'status', label: 'Status' },
  { key: 'writtenAt', label: 'Written at', type: 'datetime' }
]

const orderFields = [
  { key: 'id', label: 'Event ID' },
  { key: 'platformOrderId', label: 'Order ID (platform)' },
  { key: 'customerEmail', label: 'Customer email' },
  { key: 'customerName', label: 'Customer name' },
  { key: 'total', label: 'Total', type: 'number' },
  { key: 'currency', label: 'Currency' },
  { key: 'placedAt', label: 'Placed at', type: 'datetime' },
  { key: 'reviewRequest__state', label: 'Review request state' }
]

const newReview = pollingTrigger({
  key: 'new_review',
  eventType: 'review.created',
  noun: 'Review',
  label: 'New Review',
  description: 'Triggers when a customer writes a review (checked every few minutes).',
  sample: samples.review,
  outputFields: reviewFields
})

const newOrder = pollingTrigger({
  key: 'new_order',
  eventType: 'order.upserted',
  noun: 'Order',
  label: 'New or Updated Order',
  description: 'Triggers when an order is created or changed by an order sync (checked every few minutes).',
  sample: samples.order,
  outputFields: orderFields
})

const newReviewInstant = hookTrigger({
  key: 'new_review_instant',
  eventType: 'review.created',
  noun: 'Review',
  label: 'New Review (Instant)',
  description: 'Triggers the moment a customer writes a review.',
  sample: samples.review,
  outputFields: reviewFields
})

const newOrderInstant = hookTrigger({
  key: 'new_order_instant',
  eventType: 'order.upserted',
  noun: 'Order',
  label: 'New or Updated Order (Instant)',
  description: 'Triggers the moment an order is created or changed by an order sync.',
  sample: samples.order,
  outputFields: orderFields
})

module.exports = { newReview, newOrder, newReviewInstant, newOrderInstant }
