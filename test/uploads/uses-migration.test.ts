import t from 'tap'
import { build, call } from '../helper.js'
import { scratchDatabase } from '../scratch-database.js'
import { makeTenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { formData, JPEG } from '../content/multipart.js'

t.test('the migration records the uses rows made before it: review media, gallery photos and the email logo', async (t) => {
  const db = await scratchDatabase(t, 'uses')
  await db.migrate.latest()
  const app = await build(t, { db })
  const tenant = await makeTenant(app)
  const api = (method: 'PUT' | 'POST' | 'GET', url: string, payload?: object) =>
    call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })
  let visitors = 0
  const visitor = (options: Omit<Parameters<typeof storefront>[1], 'store' | 'ip'>) =>
    storefront(app, { store: tenant.storeId, ip: `198.51.100.${++visitors}`, ...options })
  const image = () =>
    visitor({ url: '/v1/uploads/image', ...formData({ filename: 'a.jpg', type: 'image/jpeg', bytes: JPEG }) }).then((res) =>
      res.json().id as string
    )
  await api('PUT', '/v1/products', { products: [{ platformProductId: 'p1' }] })
  const [media, logo] = [await image(), await image()]
  const review = await visitor({
    url: '/v1/reviews',
    payload: { productId: 'p1', rating: 5, body: 'See it', authorName: 'Ann', authorEmail: 'ann@example.test', mediaIds: [media] }
  })
  t.equal(review.statusCode, 201)
  const gallery = (await api('POST', '/v1/galleries', { name: 'Worn by you', status: 'published' })).json()
  const photo = await visitor({
    url: `/v1/galleries/${gallery.id}/photos`,
    ...formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: JPEG })
  })
  t.equal(photo.statusCode, 201)
  t.equal((await api('PUT', '/v1/email-branding', { fromName: 'Shirt Co', logoUploadId: logo })).statusCode, 200)
  const recorded = async () => (await db('upload_uses').where({ store_env_id: tenant.storeId }).select('used_by', 'upload_id'))
    .map((use: { used_by: string, upload_id: string }) => `${use.used_by} ${use.upload_id}`).sort()
  const made = await recorded()
  t.equal(made.length, 3)

  // Later migrations stay: this one alone is taken back and made again.
  const { name } = await db('knex_migrations').where('name', 'like', '20261201010000_upload_uses.%').first('name')
  await db.migrate.down({ name })
  t.notOk(await db.schema.hasTable('upload_uses'), 'taken back')
  await db.migrate.latest()
  t.same(await recorded(), made, 'the migration records what attach recorded')
  t.ok(
    made.includes(`review:${review.json().id} ${media}`) &&
      made.includes(`photo:${photo.json().id} ${(await db('gallery_photos').where({ id: photo.json().id }).first()).upload_id}`) &&
      made.includes(`branding ${logo}`)
  )
})
