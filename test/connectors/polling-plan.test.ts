import t from 'tap'
import { build, onMysql } from '../helper.js'
import { makeTenant } from '../factories.js'
import { POLL_INDEX } from '../../src/modules/connectors/triggers/triggers.repository.js'

/** With a million events per store, a poll must read index entries of its own type only (bench/connectors.ts). */
t.test('a poll is answered from the (store_env_id, type, id) index without sorting', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const query = app.services.triggersRepo.newestQuery(tenant.storeId, 'review.created', 50).toSQL().toNative()
  if (onMysql) {
    const [rows] = await app.db.raw(`EXPLAIN ${query.sql}`, query.bindings)
    t.equal(rows[0].key, POLL_INDEX)
    t.equal(rows[0].type, 'ref')
    t.notMatch(String(rows[0].Extra), /filesort/i)
  } else {
    const rows = await app.db.raw(`EXPLAIN QUERY PLAN ${query.sql}`, query.bindings)
    const plan = rows.map((row: { detail: string }) => row.detail).join('\n')
    t.match(plan, new RegExp(`USING INDEX ${POLL_INDEX} \\(store_env_id=\\? AND type=\\?\\)`))
    t.notMatch(plan, /TEMP B-TREE/)
  }
})
