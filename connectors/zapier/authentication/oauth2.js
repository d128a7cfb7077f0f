'use strict'

const { apiUrl, baseUrl } = require('../lib/api')

/**
 * What the connection asks for: each trigger polls with read scope on its event's resource
 * (docs/contract/connectors.md#connector-scopes), the actions write products and reviews, instant triggers manage REST
 * hooks (`webhooks:write`, the documented scope), and `offline_access` brings a refresh token
 * (docs/contract/oauth.md#refresh-tokens). A connection made before a scope was added here lacks it: its Zaps on those
 * triggers get `insufficient_scope` until the user reconnects.
 */
const TRIGGER_SCOPES = [
  'reviews:read', 'products:read', 'orders:read', 'customers:read', 'loyalty:read', 'review-incentives:read',
  'affiliates:read', 'galleries:read', 'email-suppressions:read'
]
const SCOPES = [...TRIGGER_SCOPES, 'products:write', 'reviews:write', 'webhooks:write', 'offline_access']

/** The token endpoint answers the standard OAuth error body; Zapier shows `error_description`. */
const tokenRequest = async (z, bundle, params) => {
  const response = await z.request({
    method: 'POST',
    url: `${baseUrl()}/oauth/token`,
    body: { ...params, client_id: process.env.CLIENT_ID, client_secret: process.env.CLIENT_SECRET },
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    skipThrowForStatus: true
  })
  const body = response.data || {}
  if (response.status !== 200) {
    const message = body.error_description || body.error || `The token endpoint answered ${response.status}`
    if (params.grant_type === 'refresh_token') throw new z.errors.ExpiredAuthError(message)
    throw new z.errors.Error(message, body.error || 'token_error', response.status)
  }
  return body
}

/** `store_env_id` comes with every token response, so the connection knows its store without asking. */
const tokensOf = (body, previous = {}) => ({
  access_token: body.access_token,
  refresh_token: body.refresh_token || previous.refresh_token,
  store_env_id: body.store_env_id || previous.store_env_id
})

const getAccessToken = async (z, bundle) => {
  const params = { grant_type: 'authorization_code', code: bundle.inputData.code, redirect_uri: bundle.inputData.redirect_uri }
  if (bundle.inputData.code_verifier) params.code_verifier = bundle.inputData.code_verifier
  return tokensOf(await tokenRequest(z, bundle, params))
}

/** Refresh tokens rotate: keep the new one (the old one dies after a short grace). */
const refreshAccessToken = async (z, bundle) => {
  const body = await tokenRequest(z, bundle, { grant_type: 'refresh_token', refresh_token: bundle.authData.refresh_token })
  return tokensOf(body, bundle.authData)
}

/** The connection test: who am I, for which store. */
const test = async (z) => {
  const response = await z.request({ url: apiUrl('/connectors/me') })
  return response.data
}

/** "Acme Outdoor – Main store", from the test's answer. */
const connectionLabel = (z, bundle) => {
  const me = bundle.inputData
  return `${me.organization.name} – ${me.storeEnv.name}`
}

module.exports = {
  type: 'oauth2',
  oauth2Config: {
    // A function, so the URL follows EVIDENCE_HUB_URL; Zapier adds the PKCE challenge itself (enablePkce).
    authorizeUrl: (z, bundle) => {
      const url = new URL(`${baseUrl()}/oauth/auth`)
      url.search = new URLSearchParams({
        client_id: process.env.CLIENT_ID,
        response_type: 'code',
        redirect_uri: bundle.inputData.redirect_uri,
        state: bundle.inputData.state,
        scope: SCOPES.join(' ')
      }).toString()
      return url.href
    },
    getAccessToken,
    refreshAccessToken,
    autoRefresh: true,
    enablePkce: true,
    scope: SCOPES.join(' ')
  },
  fields: [
    {
      key: 'store_env_id',
      label: 'Store environment',
      type: 'string',
      required: true,
      computed: true,
      helpText: 'Filled from the token response: the first store chosen on the consent screen.'
    }
  ],
  test,
  connectionLabel
}
