'use strict'

/**
 * Output fields: what a Zap's later steps can map, with labels Zapier shows instead of raw keys. Nested values use
 * Zapier's `a__b` keys. Every item also has `type` (the event type) and `createdAt` (when the event happened).
 */
const eventFields = [
  { key: 'id', label: 'Event ID' },
  { key: 'createdAt', label: 'Happened at', type: 'datetime' }
]

const review = [
  ...eventFields,
  { key: 'reviewId', label: 'Review ID' },
  { key: 'productId', label: 'Product ID (platform)' },
  { key: 'orderId', label: 'Order ID (platform)' },
  { key: 'rating', label: 'Rating', type: 'integer' },
  { key: 'title', label: 'Title' },
  { key: 'body', label: 'Review text' },
  { key: 'authorName', label: 'Author name' },
  { key: 'authorEmailLast4', label: 'Author email (last 4 characters)' },
  { key: 'verified', label: 'Verified buyer', type: 'boolean' },
  { key: 'status', label: 'Status' },
  { key: 'helpfulCount', label: 'Helpful votes', type: 'integer' },
  { key: 'source', label: 'Source' },
  { key: 'reply__body', label: 'Store reply' },
  { key: 'reply__repliedAt', label: 'Replied at', type: 'datetime' },
  { key: 'writtenAt', label: 'Written at', type: 'datetime' },
  { key: 'updatedAt', label: 'Updated at', type: 'datetime' }
]

const product = [
  ...eventFields,
  { key: 'platformProductId', label: 'Product ID (platform)' },
  { key: 'title', label: 'Title' },
  { key: 'url', label: 'Product page URL' },
  { key: 'imageUrl', label: 'Image URL' },
  { key: 'excludedFromReviewRequests', label: 'Excluded from review requests', type: 'boolean' },
  { key: 'exclusionReason', label: 'Exclusion reason' },
  { key: 'categoryIds', label: 'Category IDs', list: true },
  { key: 'updatedAt', label: 'Updated at', type: 'datetime' }
]

const order = [
  ...eventFields,
  { key: 'platformOrderId', label: 'Order ID (platform)' },
  { key: 'customerEmail', label: 'Customer email' },
  { key: 'customerName', label: 'Customer name' },
  { key: 'customerId', label: 'Customer ID' },
  { key: 'platformCustomerId', label: 'Customer ID (platform)' },
  { key: 'total', label: 'Total', type: 'number' },
  { key: 'currency', label: 'Currency' },
  { key: 'placedAt', label: 'Placed at', type: 'datetime' },
  { key: 'fulfilledAt', label: 'Fulfilled at', type: 'datetime' },
  { key: 'affiliateCode', label: 'Affiliate code' },
  { key: 'reviewRequest__state', label: 'Review request state' },
  { key: 'reviewRequest__reason', label: 'Review request reason' },
  { key: 'reviewRequest__scheduledFor', label: 'Review request scheduled for', type: 'datetime' },
  { key: 'updatedAt', label: 'Updated at', type: 'datetime' }
]

const loyaltyReward = [
  ...eventFields,
  { key: 'loyaltyAccountId', label: 'Loyalty account ID' },
  { key: 'customerId', label: 'Customer ID' },
  { key: 'customerEmail', label: 'Customer email' },
  { key: 'customerName', label: 'Customer name' },
  { key: 'points', label: 'Points granted', type: 'integer' },
  { key: 'balance', label: 'Balance after', type: 'integer' },
  { key: 'lifetimePoints', label: 'Lifetime points', type: 'integer' },
  { key: 'tier', label: 'Tier' },
  { key: 'description', label: 'Description' },
  { key: 'entry__id', label: 'Ledger entry ID' }
]

const birthdayReward = [...loyaltyReward, { key: 'year', label: 'Birthday year', type: 'integer' }]

const referralReward = [
  ...loyaltyReward,
  { key: 'referralId', label: 'Referral ID' },
  { key: 'referredEmail', label: 'Referred friend\'s email' },
  { key: 'orderId', label: 'First order ID (platform)' },
  { key: 'role', label: 'Rewarded as (referrer or referee)' }
]

const customer = [
  ...eventFields,
  { key: 'customerId', label: 'Customer ID' },
  { key: 'platformCustomerId', label: 'Customer ID (platform)' },
  { key: 'email', label: 'Email' },
  { key: 'firstName', label: 'First name' },
  { key: 'lastName', label: 'Last name' },
  { key: 'phone', label: 'Phone' },
  { key: 'birthday__month', label: 'Birthday month', type: 'integer' },
  { key: 'birthday__day', label: 'Birthday day', type: 'integer' },
  { key: 'birthday__year', label: 'Birth year', type: 'integer' },
  { key: 'updatedAt', label: 'Updated at', type: 'datetime' }
]

const erasedCustomer = [
  ...eventFields,
  { key: 'customerId', label: 'Customer ID' },
  { key: 'orderIds', label: 'Order IDs kept without personal data', list: true },
  { key: 'reviewIds', label: 'Review IDs kept without personal data', list: true }
]

const deletedProduct = [...eventFields, { key: 'platformProductId', label: 'Product ID (platform)' }]

const deletedOrder = [...eventFields, { key: 'platformOrderId', label: 'Order ID (platform)' }]

const reviewReward = [
  ...eventFields,
  { key: 'rewardId', label: 'Reward ID' },
  { key: 'incentiveId', label: 'Incentive ID' },
  { key: 'incentiveType', label: 'Reward type (coupon or points)' },
  { key: 'reviewId', label: 'Review ID' },
  { key: 'productId', label: 'Product ID (platform)' },
  { key: 'status', label: 'Status (issued, pool_empty or no_customer)' },
  { key: 'code', label: 'Coupon code' },
  { key: 'points', label: 'Points', type: 'integer' },
  { key: 'customerId', label: 'Customer ID' }
]

const affiliateReferral = [
  ...eventFields,
  { key: 'referralId', label: 'Referral ID' },
  { key: 'affiliateId', label: 'Affiliate ID' },
  { key: 'orderId', label: 'Order ID (platform)' },
  { key: 'currency', label: 'Currency' },
  { key: 'orderTotalCents', label: 'Order total (cents)', type: 'integer' },
  { key: 'commissionRate', label: 'Commission rate' },
  { key: 'commissionCents', label: 'Commission (cents)', type: 'integer' },
  { key: 'commissionUsdCents', label: 'Commission (USD cents)', type: 'integer' },
  { key: 'usdRate', label: 'USD rate' },
  { key: 'capped', label: 'Capped at the per-referral maximum', type: 'boolean' },
  { key: 'status', label: 'Status' }
]

const galleryPhoto = [
  ...eventFields,
  { key: 'photoId', label: 'Photo ID' },
  { key: 'galleryId', label: 'Gallery ID' },
  { key: 'imageUrl', label: 'Image URL' },
  { key: 'caption', label: 'Caption' },
  { key: 'authorName', label: 'Author name' },
  { key: 'authorEmailLast4', label: 'Author email (last 4 characters)' },
  { key: 'status', label: 'Moderation status' }
]

const galleryLead = [
  ...eventFields,
  { key: 'leadId', label: 'Lead ID' },
  { key: 'galleryId', label: 'Gallery ID' },
  { key: 'email', label: 'Email' },
  { key: 'name', label: 'Name' },
  { key: 'consent', label: 'Consented to marketing', type: 'boolean' }
]

const emailSuppression = [
  ...eventFields,
  { key: 'email', label: 'Email' },
  { key: 'reason', label: 'Reason (unsubscribed, bounced, complained or manual)' }
]

module.exports = {
  review,
  product,
  order,
  birthdayReward,
  referralReward,
  customer,
  erasedCustomer,
  deletedProduct,
  deletedOrder,
  reviewReward,
  affiliateReferral,
  galleryPhoto,
  galleryLead,
  emailSuppression
}
