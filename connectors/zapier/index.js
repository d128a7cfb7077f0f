'use strict'

const { version } = require('./package.json')
const { version: platformVersion } = require('zapier-platform-core')
const authentication = require('./authentication/oauth2')
const { includeCredentials, handleErrors } = require('./lib/api')
const { newReview, newOrder, newReviewInstant, newOrderInstant } = require('./triggers')
const upsertProduct = require('./creates/upsert-product')
const replyToReview = require('./creates/reply-to-review')

/** The Evidence Hub integration: triggers on reviews and orders, actions on products and reviews. */
module.exports = {
  version,
  platformVersion,
  authentication,
  beforeRequest: [includeCredentials],
  afterResponse: [handleErrors],
  triggers: {
    [newReview.key]: newReview,
    [newOrder.key]: newOrder,
    [newReviewInstant.key]: newReviewInstant,
    [newOrderInstant.key]: newOrderInstant
  },
  creates: {
    [upsertProduct.key]: upsertProduct,
    [replyToReview.key]: replyToReview
  }
}
