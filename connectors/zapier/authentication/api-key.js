'use strict'

const { test, connectionLabel } = require('./connection')

/** An `svc_…` API key and the store it acts on, pasted by the user. */
module.exports = {
  type: 'custom',
  fields: [
    { key: 'api_key', label: 'API key', type: 'password', required: true, helpText: 'An `svc_…` key from your Evidence Hub settings. Scope it to what the Zap needs, e.g. `reviews:read`.' },
    { key: 'store_env_id', label: 'Store environment ID', type: 'string', required: true, helpText: 'The `env_…` id of the store this connection acts on.' }
  ],
  test,
  connectionLabel
}
