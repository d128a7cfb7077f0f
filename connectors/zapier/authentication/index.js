'use strict'

/** The authentication the integration uses; the connection test and label are shared (./connection.js). */
module.exports = require('./api-key')
