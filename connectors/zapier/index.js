'use strict'

const { version } = require('./package.json')
const { version: platformVersion } = require('zapier-platform-core')
const authentication = require('./authentication/oauth2')
const { includeCredentials, handleErrors } = require('./lib/api')
const { triggers } = require('./triggers')
const upsertProduct = require('./creates/upsert-product')
const replyToReview = require('./creates/reply-to-review')

/**
 * The Evidence Hub integration: a polling and an instant trigger for every trigger of the API's catalogue (reviews,
 * products, orders, customers, loyalty, review rewards, affiliates, galleries, suppressions), actions on products
 * and reviews.
 */
module.exports = {
  version,
  platformVersion,
  authentication,
  beforeRequest: [includeCredentials],
  afterResponse: [handleErrors],
  triggers,
  creates: {
    [upsertProduct.key]: upsertProduct,
    [replyToReview.key]: replyToReview
  }
}
