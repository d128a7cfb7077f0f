import fp from 'fastify-plugin'
import type { Knex } from 'knex'
import { createKnex } from '../db.js'

declare module 'fastify' {
  interface FastifyInstance { db: Knex }
}

/** A knex handle passed in by the caller is theirs to close; one made here is closed with the app. */
export default fp<{ db?: Knex }>(async (app, opts) => {
  const db = opts.db ?? createKnex(app.config)
  app.decorate('db', db)
  if (!opts.db) app.addHook('onClose', async () => { await db.destroy() })
}, { name: 'db', dependencies: ['config'] })
