import type { Knex } from 'knex'
import { exactIds } from '../src/lib/exact-collation.js'
import { originKey } from '../src/lib/origins.js'

/*
 * Every store's allowed origins, one row each in the form the storefront compares (lib/origins.ts originKey), so a
 * CORS preflight, which names no store, asks "does any store allow this origin?" by key. It used to search every
 * store's JSON list with LIKE '%…%', a scan of store_envs per preflight from an origin not seen lately, which any
 * caller could repeat by varying Origin. store_envs.allowed_origins stays the list the API answers (its order);
 * stores.repository.ts writes both in one transaction.
 */
export async function up (knex: Knex): Promise<void> {
  const id = await exactIds(knex)
  await knex.schema.createTable('store_origins', (t) => {
    id(t.string('origin', 300).notNullable())
    id(t.string('store_env_id', 40).notNullable().references('store_envs.id').onDelete('CASCADE'))
    t.primary(['origin', 'store_env_id'])
    t.index(['store_env_id'])
  })
  let after = ''
  for (;;) {
    const stores = await knex('store_envs').where('id', '>', after).orderBy('id').limit(500).select('id', 'allowed_origins') as Array<
      { id: string, allowed_origins: string }
    >
    if (stores.length === 0) break
    const rows = stores.flatMap((store) => [...new Set((JSON.parse(store.allowed_origins) as string[]).map(originKey))]
      .filter((origin) => origin.length <= 300).map((origin) => ({ origin, store_env_id: store.id })))
    for (let i = 0; i < rows.length; i += 200) await knex('store_origins').insert(rows.slice(i, i + 200))
    after = stores[stores.length - 1].id
  }
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('store_origins')
}
