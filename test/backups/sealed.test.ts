import t from 'tap'
import { gunzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { sharedApp } from '../helper.js'
import { makeStore, makeTenant, type Tenant } from '../factories.js'
import { encrypt } from '../../src/lib/secrets.js'
import { as, backupLines, completedBackup, rewriteBackup } from './backup-app.js'

/**
 * docs/contract/catalog.md#reviewer-email: a reviewer's full address is shown in the admin application only. A backup
 * file is downloaded through the API, so it holds the address sealed with the deployment's key, which a restore opens.
 */

const ADDRESS = 'dee.reviewer@mailbox.test'

async function reviewedStore () {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const store = (await app.services.stores.find(tenant.storeId))!
  await as(app, tenant)('PUT', '/v1/products', { products: [{ platformProductId: 'p1' }] })
  await app.services.reviews.submit(store, { productId: 'p1', rating: 4, body: 'Nice', authorName: 'Dee', authorEmail: ADDRESS })
  const { backup } = await completedBackup(app, tenant)
  return { app, tenant, backup }
}

const restore = (app: FastifyInstance, tenant: Tenant, backupId: string, target: string) =>
  as(app, tenant)('POST', `/v1/backups/${backupId}/restore`, { targetStoreEnvId: target })

const addressesIn = async (app: FastifyInstance, storeId: string) =>
  (await app.services.db('reviews').where({ store_env_id: storeId }).pluck('author_email')) as string[]

t.test('a downloaded backup holds no reviewer\'s address, and a restore gives the address back', async (t) => {
  const { app, tenant, backup } = await reviewedStore()
  const download = await as(app, tenant)('GET', `/v1/backups/${backup.id}/download`)
  t.equal(download.statusCode, 200)
  const text = gunzipSync(download.rawPayload).toString()
  t.notOk(text.toLowerCase().includes('mailbox.test'), 'not the address, nor its domain')
  const review = text.trim().split('\n').map((line) => JSON.parse(line)).find((line) => line.table === 'reviews')
  t.match(review.row, { author_name: 'Dee', author_email: { sealed: /^v1\./ } })
  const target = await makeStore(app, tenant)
  t.equal((await restore(app, tenant, backup.id, target)).statusCode, 200)
  t.same(await addressesIn(app, target), [ADDRESS])
})

t.test('a backup whose addresses another deployment sealed is refused whole with 409', async (t) => {
  const { app, tenant, backup } = await reviewedStore()
  const lines = await backupLines(app, backup.id)
  for (const line of lines) {
    if (line.table === 'reviews') line.row.author_email = { sealed: encrypt(ADDRESS, 'another-deployment-secret-key-0123456789abcdef') }
  }
  await rewriteBackup(app, backup.id, lines)
  const target = await makeStore(app, tenant)
  const res = await restore(app, tenant, backup.id, target)
  t.equal(res.statusCode, 409)
  t.match(res.json(), { code: 'conflict', message: /another deployment/ })
  t.same(await addressesIn(app, target), [], 'nothing restored')
})

t.test('a backup whose sealed address is not a sealed value is refused as damaged', async (t) => {
  const { app, tenant, backup } = await reviewedStore()
  const lines = await backupLines(app, backup.id)
  for (const line of lines) if (line.table === 'reviews') line.row.author_email = { value: ADDRESS }
  await rewriteBackup(app, backup.id, lines)
  const target = await makeStore(app, tenant)
  const res = await restore(app, tenant, backup.id, target)
  t.equal(res.statusCode, 409)
  t.match(res.json().message, /damaged/)
})

t.test('a backup made before addresses were sealed restores its plain addresses', async (t) => {
  const { app, tenant, backup } = await reviewedStore()
  const lines = await backupLines(app, backup.id)
  lines[0].version = 3
  for (const line of lines) if (line.table === 'reviews') line.row.author_email = ADDRESS
  await rewriteBackup(app, backup.id, lines)
  const target = await makeStore(app, tenant)
  t.equal((await restore(app, tenant, backup.id, target)).statusCode, 200)
  t.same(await addressesIn(app, target), [ADDRESS])
})
