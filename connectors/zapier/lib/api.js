'use strict'

/**
 * Where the Evidence Hub API lives. Set it per deployed version with `zapier env:set <version>
 * EVIDENCE_HUB_URL=https://api.example.com` (no trailing slash); the tests point it at a locally started service.
 */
const baseUrl = () => {
  const url = process.env.EVIDENCE_HUB_URL
  if (!url) throw new Error('EVIDENCE_HUB_URL is not set for this integration version')
  return url.replace(/\/+$/, '')
}

const apiUrl = (path) => `${baseUrl()}/v1${path}`

/** The access token and the store go on API calls only, never on the OAuth token endpoint. */
const includeCredentials = (request, z, bundle) => {
  if (!request.url.startsWith(apiUrl('/'))) return request
  request.headers = request.headers || {}
  if (bundle.authData.access_token) request.headers.Authorization = `Bearer ${bundle.authData.access_token}`
  if (bundle.authData.store_env_id) request.headers['x-store-env-id'] = bundle.authData.store_env_id
  request.headers.Accept = 'application/json'
  return request
}

const errorBody = (response) => {
  const body = response.data && typeof response.data === 'object' ? response.data : {}
  return { message: body.message || `The API answered ${response.status}`, code: body.code || `http_${response.status}` }
}

/**
 * Every error is `{ message, code }` (docs/contract/api-conventions.md#errors). With OAuth2, a 401 is turned into a
 * refresh by zapier-platform-core before this runs (autoRefresh), and a 429 into a ThrottledError that honours
 * Retry-After; a 401 that reaches here means the connection is dead.
 */
const handleErrors = (response, z) => {
  if (response.status < 400 || (response.request && response.request.skipThrowForStatus)) return response
  const { message, code } = errorBody(response)
  if (response.status === 401) throw new z.errors.ExpiredAuthError(message)
  throw new z.errors.Error(message, code, response.status)
}

module.exports = { baseUrl, apiUrl, includeCredentials, handleErrors }
