'use strict'

const { apiUrl } = require('../lib/api')
const samples = require('../lib/samples')

/** Sets the store's public reply on a review (`PATCH /v1/reviews/:id`), optionally publishing it too. */
const perform = async (z, bundle) => {
  const { reviewId, reply, publish } = bundle.inputData
  const body = { reply }
  if (publish === true || publish === 'true') body.status = 'published'
  const response = await z.request({ method: 'PATCH', url: apiUrl(`/reviews/${encodeURIComponent(reviewId)}`), body })
  return response.data
}

module.exports = {
  key: 'reply_to_review',
  noun: 'Review Reply',
  display: {
    label: 'Reply to Review',
    description: 'Posts the store\'s public reply under a review, replacing any earlier reply.'
  },
  operation: {
    inputFields: [
      {
        key: 'reviewId',
        label: 'Review',
        required: true,
        dynamic: 'new_review.reviewId.title',
        helpText: 'The review\'s id (`rev_…`), e.g. "Review ID" from a New Review trigger.'
      },
      { key: 'reply', label: 'Reply', type: 'text', required: true },
      { key: 'publish', label: 'Also publish the review', type: 'boolean', default: 'false' }
    ],
    perform,
    sample: samples.repliedReview,
    outputFields: [
      { key: 'id', label: 'Review ID' },
      { key: 'status', label: 'Status' },
      { key: 'reply__body', label: 'Reply' },
      { key: 'reply__repliedAt', label: 'Replied at', type: 'datetime' }
    ]
  }
}
