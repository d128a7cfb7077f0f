'use strict'

const { pollingTrigger, hookTrigger } = require('./events')
const fields = require('./fields')
const { triggers: samples } = require('../lib/samples')

/**
 * One entry per trigger of the API's catalogue (`GET /v1/connectors/triggers`); each becomes a polling trigger
 * (`key`) and an instant one (`key_instant`). test/polling.test.ts fails when the catalogue has a trigger that is
 * not here. `when` finishes the sentence "Triggers when …".
 */
const DEFINITIONS = [
  {
    key: 'new_review',
    eventType: 'review.created',
    noun: 'Review',
    label: 'New Review',
    when: 'a customer writes a review',
    outputFields: fields.review
  },
  {
    key: 'review_published',
    eventType: 'review.published',
    noun: 'Review',
    label: 'Review Published',
    when: 'a review is approved and shown on the storefront',
    outputFields: fields.review
  },
  {
    key: 'review_updated',
    eventType: 'review.updated',
    noun: 'Review',
    label: 'Review Updated',
    when: 'a review changes: its status, the store\'s reply or its content',
    outputFields: fields.review
  },
  {
    key: 'review_deleted',
    eventType: 'review.deleted',
    noun: 'Review',
    label: 'Review Deleted',
    when: 'a review is deleted',
    outputFields: fields.review
  },
  {
    key: 'new_or_updated_product',
    eventType: 'product.upserted',
    noun: 'Product',
    label: 'New or Updated Product',
    when: 'a product is created or changed by a product sync',
    outputFields: fields.product
  },
  {
    key: 'product_deleted',
    eventType: 'product.deleted',
    noun: 'Product',
    label: 'Product Deleted',
    when: 'a product is deleted in the shop platform and removed from Evidence Hub',
    outputFields: fields.deletedProduct
  },
  {
    key: 'new_order',
    eventType: 'order.upserted',
    noun: 'Order',
    label: 'New or Updated Order',
    when: 'an order is created or changed by an order sync',
    outputFields: fields.order
  },
  {
    key: 'review_request_status_changed',
    eventType: 'order.review_request.updated',
    noun: 'Order',
    label: 'Review Request Status Changed',
    when: 'the review request of an order is scheduled, sent, failed or skipped',
    outputFields: fields.order
  },
  {
    key: 'order_deleted',
    eventType: 'order.deleted',
    noun: 'Order',
    label: 'Order Deleted',
    when: 'an order is deleted in the shop platform and removed from Evidence Hub',
    outputFields: fields.deletedOrder
  },
  {
    key: 'new_customer',
    eventType: 'customer.created',
    noun: 'Customer',
    label: 'New Customer',
    when: 'a customer is added by a customer sync or a gallery sign-up',
    outputFields: fields.customer
  },
  {
    key: 'customer_updated',
    eventType: 'customer.updated',
    noun: 'Customer',
    label: 'Customer Updated',
    when: 'a customer\'s name, email address, phone or birthday changes',
    outputFields: fields.customer
  },
  {
    key: 'customer_erased',
    eventType: 'customer.deleted',
    noun: 'Customer',
    label: 'Customer Erased',
    when: 'a customer\'s personal data is erased on a privacy request (their orders and reviews stay, without it)',
    outputFields: fields.erasedCustomer
  },
  {
    key: 'birthday_reward_granted',
    eventType: 'loyalty.birthday_reward',
    noun: 'Loyalty Reward',
    label: 'Birthday Reward Granted',
    when: 'a loyalty member receives their birthday points',
    outputFields: fields.birthdayReward
  },
  {
    key: 'referral_reward_granted',
    eventType: 'loyalty.referral_reward',
    noun: 'Loyalty Reward',
    label: 'Referral Reward Granted',
    when: 'a loyalty member is rewarded for a referral: the referrer and the referred friend each get one on the friend\'s first order',
    outputFields: fields.referralReward
  },
  {
    key: 'review_reward_issued',
    eventType: 'review_incentive.issued',
    noun: 'Review Reward',
    label: 'Review Reward Issued',
    when: 'a published review earns its author a coupon code or points (or would have, with status pool_empty or no_customer)',
    outputFields: fields.reviewReward
  },
  {
    key: 'new_affiliate_referral',
    eventType: 'affiliate.referral_recorded',
    noun: 'Affiliate Referral',
    label: 'New Affiliate Referral',
    when: 'an order comes in with an affiliate\'s code and their commission is recorded',
    outputFields: fields.affiliateReferral
  },
  {
    key: 'new_gallery_photo',
    eventType: 'gallery.photo.created',
    noun: 'Gallery Photo',
    label: 'New Gallery Photo',
    when: 'a shopper sends a photo to a gallery (it waits for moderation)',
    outputFields: fields.galleryPhoto
  },
  {
    key: 'new_gallery_lead',
    eventType: 'gallery.lead.created',
    noun: 'Gallery Lead',
    label: 'New Gallery Lead',
    when: 'a shopper leaves their email address on a gallery\'s sign-up form',
    outputFields: fields.galleryLead
  },
  {
    key: 'email_suppressed',
    eventType: 'email_suppression.created',
    noun: 'Email Suppression',
    label: 'Email Address Suppressed',
    when: 'an address is added to the do-not-mail list: it unsubscribed, bounced, complained, or was added by hand',
    outputFields: fields.emailSuppression
  }
]

/** The polling trigger and its instant twin for one catalogue trigger, with the catalogue's sample. */
function pair ({ key, eventType, noun, label, when, outputFields }) {
  const common = { eventType, noun, sample: samples[eventType], outputFields }
  return [
    pollingTrigger({ ...common, key, label, description: `Triggers when ${when} (checked every few minutes).` }),
    hookTrigger({
      ...common,
      key: `${key}_instant`,
      label: `${label} (Instant)`,
      description: `Triggers when ${when}, as soon as it happens.`
    })
  ]
}

/** Every trigger of the app by its key, as `triggers` of the app definition expects. */
const triggers = Object.fromEntries(DEFINITIONS.flatMap(pair).map((trigger) => [trigger.key, trigger]))

module.exports = { DEFINITIONS, triggers }
