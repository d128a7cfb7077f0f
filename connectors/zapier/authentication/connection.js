'use strict'

const { apiUrl } = require('../lib/api')

/** Both authentication types test the connection the same way: who am I, for which store. */
const test = async (z) => {
  const response = await z.request({ url: apiUrl('/connectors/me') })
  return response.data
}

/** "Acme Outdoor – Main store", from the test's answer. */
const connectionLabel = (z, bundle) => {
  const me = bundle.inputData
  return `${me.organization.name} – ${me.storeEnv.name}`
}

module.exports = { test, connectionLabel }
