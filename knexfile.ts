import { loadConfig } from './src/config.js'
import { knexConfig } from './src/db.js'

// For the knex CLI (`npx knex migrate:latest`); the service itself migrates on start.
export default knexConfig(loadConfig())
