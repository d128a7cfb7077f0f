import t from 'tap'
import { call, onMysql } from '../helper.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { lockWaitOf } from '../lock-wait.js'
import { contentApp } from './app.js'

t.test('a lead sent while its gallery is being unpublished waits for that change and is refused as not found', {
  skip: !onMysql && 'SQLite has one writer: the lead runs before or after the change, never beside it'
}, async (t) => {
  const app = await contentApp()
  const tenant = await makeTenant(app)
  const gallery = (await call(app, {
    method: 'POST',
    url: '/v1/galleries',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'Worn by you', status: 'published' }
  })).json()
  const holder = await app.db.transaction()
  let lead: ReturnType<typeof storefront> | null = null
  try {
    await holder('galleries').where({ id: gallery.id }).forUpdate().first('id')
    await holder('galleries').where({ id: gallery.id }).update({ status: 'draft' })
    lead = storefront(app, {
      url: `/v1/galleries/${gallery.id}/leads`,
      store: tenant.storeId,
      payload: { email: 'held@example.test', consent: true }
    })
    t.ok(await lockWaitOf(app, tenant.storeId, lead), 'the lead waits for the gallery')
    await holder.commit()
  } finally {
    if (!holder.isCompleted()) await holder.rollback()
  }
  // Read without the shared lock, the gallery would still look published and the lead would be stored in a draft.
  t.equal((await lead).statusCode, 404)
  t.equal((await app.db('gallery_leads').where({ gallery_id: gallery.id })).length, 0, 'no lead stored')
})
