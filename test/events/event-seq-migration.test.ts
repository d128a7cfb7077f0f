import t from 'tap'
import { build, call } from '../helper.js'
import { scratchDatabase } from '../scratch-database.js'
import { makeTenant } from '../factories.js'
import { appendEvent } from '../webhooks/support.js'

t.test('events logged before the migration keep their ids and cursors, and the store\'s next event follows on', async (t) => {
  const db = await scratchDatabase(t, 'seq')
  await db.migrate.latest()
  const app = await build(t, { db })
  const [other, tenant] = [await makeTenant(app), await makeTenant(app)]
  const { name } = await db('knex_migrations').where('name', 'like', '20261203010000_event_store_seq.%').first('name')
  await db.migrate.down({ name })
  // The log as it was: global ids, interleaved between stores, and the head counting the store's events.
  const old = async (tenantOf: typeof tenant) =>
    Number(
      (await db('events').insert({
        org_id: tenantOf.orgId,
        store_env_id: tenantOf.storeId,
        type: 'review.created',
        data: '{}',
        created_at: 1
      }))[0]
    )
  await old(other)
  const first = await old(tenant)
  await old(other)
  const second = await old(tenant)
  await db('event_heads').insert([{ store_env_id: tenant.storeId, seq: 2 }, { store_env_id: other.storeId, seq: 2 }])
  await db.migrate.latest()

  const log = async (since = '') =>
    (await call(app, { method: 'GET', url: `/v1/events${since}`, key: tenant.key, store: tenant.storeId })).json().events.map((
      e: { id: string }
    ) => e.id)
  t.same(await log(), [`evt_${first}`, `evt_${second}`], 'ids as given before')
  const next = await appendEvent(app, tenant, 'review.created')
  t.equal(next.id, `evt_${second + 1}`, 'the store goes on from its own last id')
  t.same(await log(`?since=evt_${first}`), [`evt_${second}`, next.id], 'a cursor held from before keeps its place')
  const fresh = await makeTenant(app)
  t.equal((await appendEvent(app, fresh, 'review.created')).id, 'evt_1', 'a new store counts from 1')
})
