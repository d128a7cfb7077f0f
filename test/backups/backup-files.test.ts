import t from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, call, errorBody } from '../helper.js'
import { makeStore, makeTenant, type Tenant } from '../factories.js'
import { storefront } from '../storefront.js'
import { tickingClock } from '../content/app.js'
import { formData, JPEG } from '../content/multipart.js'
import { CHUNK_BYTES } from '../../src/modules/backups/backup-uploads.js'
import { EXPORTED_TABLES } from '../../src/modules/backups/tables.js'
import { as, backupLines, completedBackup, rewriteBackup } from './backup-app.js'

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
/** Trailing bytes after the JPEG's end: a file of its own, byte for byte. */
const PHOTO = Buffer.concat([JPEG, Buffer.from('gallery photo')])
const VIDEO_BYTES = 3 * 1024 * 1024 + 123

/** An MP4 head and random media bytes (gzip cannot shrink them, so the parts are real 48 KiB ones). */
function mp4 (bytes: number): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2')])
  return Buffer.concat([ftyp, randomBytes(bytes - ftyp.length)])
}

const pathOf = (url: string) => new URL(url).pathname
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/**
 * A store with every kind of file: a review with an image and a 3 MB video, a gallery photo, and the email logo.
 * Returns the bytes each was uploaded with.
 */
async function storeWithFiles (app: FastifyInstance, tenant: Tenant) {
  const api = async (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, payload?: object) => {
    const res = await as(app, tenant)(method, url, payload)
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  let ip = 0
  const visitor = async (options: Omit<Parameters<typeof storefront>[1], 'store'>) => {
    const res = await storefront(app, { store: tenant.storeId, ip: `198.51.100.${++ip}`, ...options })
    if (res.statusCode >= 300) throw new Error(`${options.url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  const video = mp4(VIDEO_BYTES)
  await api('PUT', '/v1/products', { products: [{ platformProductId: 'p1' }] })
  const image = await visitor({ url: '/v1/uploads/image', ...formData({ filename: 'a.jpg', type: 'image/jpeg', bytes: JPEG }) })
  const grant = await visitor({ url: '/v1/reviews/video-upload-url', payload: { contentType: 'video/mp4', size: video.length } })
  await visitor({
    method: 'PUT',
    url: pathOf(grant.uploadUrl) + new URL(grant.uploadUrl).search,
    payload: video,
    headers: { 'content-type': 'video/mp4' }
  })
  await visitor({
    url: '/v1/reviews',
    payload: {
      productId: 'p1',
      rating: 5,
      body: 'See it',
      authorName: 'Ann',
      authorEmail: 'ann@example.test',
      mediaIds: [image.id, grant.videoId]
    }
  })
  const gallery = await api('POST', '/v1/galleries', { name: 'Worn by you', status: 'published' })
  await visitor({
    url: `/v1/galleries/${gallery.id}/photos`,
    ...formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: PHOTO }, { caption: 'Beach day' })
  })
  const logo = await visitor({ url: '/v1/uploads/image', ...formData({ filename: 'logo.png', type: 'image/png', bytes: PNG }) })
  await api('PUT', '/v1/email-branding', { fromName: 'Shirt Co', logoUploadId: logo.id })
  return { image: JPEG, video, photo: PHOTO, logo: PNG, logoId: logo.id as string }
}

/** The bytes GET /v1/uploads/:id serves at `url`. */
async function served (app: FastifyInstance, url: string) {
  const res = await app.inject({ method: 'GET', url: pathOf(url) })
  return res.statusCode === 200 ? res.rawPayload : null
}

/** The store's files as its API serves them: review media by type, the gallery's photo, the email logo. */
async function filesOf (app: FastifyInstance, tenant: Tenant, storeId: string) {
  const api = as(app, { ...tenant, storeId })
  const review = (await api('GET', '/v1/reviews')).json().data[0]
  const media = review.media as Array<{ id: string, type: string, url: string }>
  const gallery = (await api('GET', '/v1/galleries')).json().data[0]
  const photo = (await api('GET', `/v1/galleries/${gallery.id}/photos`)).json().data[0]
  const branding = (await api('GET', '/v1/email-branding')).json()
  return {
    urls: {
      image: media.find((m) => m.type === 'image')!.url,
      video: media.find((m) => m.type === 'video')!.url,
      photo: photo.imageUrl,
      logo: branding.logoUrl as string | null
    }
  }
}

async function backedUpStore (t: Test) {
  // Each read of the clock moves it a second: the setup's calls stay inside the key's and the visitors' budgets.
  const app = await build(t, { clock: tickingClock() })
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const bytes = await storeWithFiles(app, tenant)
  const { backup } = await completedBackup(app, tenant)
  const target = await makeStore(app, tenant)
  const restore = () => as(app, tenant)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })
  return { app, tenant, bytes, backup, target, restore }
}

const filesOnDisk = (app: FastifyInstance, storeId: string) =>
  readdir(join(app.services.config.dataDir, 'uploads', storeId)).catch(() => [])
const countIn = async (app: FastifyInstance, table: string, storeId: string) =>
  Number((await app.services.db(table).where({ store_env_id: storeId }).count({ n: '*' }))[0].n)

t.test('review images and videos, gallery photos and the email logo come back byte for byte, served from the restored store\'s own uploads', async (t) => {
  const { app, tenant, bytes, backup, target, restore } = await backedUpStore(t)
  t.match(backup, { status: 'completed', counts: { uploads: 4, reviews: 1, gallery_photos: 1, email_branding: 1 } })
  const restored = await restore()
  t.equal(restored.statusCode, 200, restored.body)
  t.equal(restored.json().counts.uploads, 4)

  const source = await filesOf(app, tenant, tenant.storeId)
  const copy = await filesOf(app, tenant, target)
  const own = await app.services.db('uploads').where({ store_env_id: target })
  for (const kind of ['image', 'video', 'photo', 'logo'] as const) {
    t.ok((await served(app, copy.urls[kind]!))?.equals(bytes[kind]), `the ${kind} is byte-identical`)
    t.ok(
      own.some((u: { id: string }) => copy.urls[kind]!.endsWith(`/v1/uploads/${u.id}`)),
      `the ${kind} is the restored store's own upload`
    )
    t.not(copy.urls[kind], source.urls[kind])
  }
  t.equal(own.length, 4)
  t.ok(
    own.every((u: { path: string, id: string }) => u.path.startsWith(`uploads/${target}/${u.id}`)),
    'stored under the target\'s folder by the new ids'
  )
  t.equal((await filesOnDisk(app, target)).length, 4)
})

t.test('a restored store records which rows use its uploads: deleting the restored review removes its image and video', async (t) => {
  const { app, tenant, target, restore } = await backedUpStore(t)
  t.equal((await restore()).statusCode, 200)
  const uses = await app.services.db('upload_uses').where({ store_env_id: target }).pluck('used_by')
  t.same(uses.map((used: string) => used.split(':')[0]).sort(), ['branding', 'photo', 'review', 'review'])
  const api = as(app, { ...tenant, storeId: target })
  const review = (await api('GET', '/v1/reviews')).json().data[0]
  t.equal((await call(app, { method: 'DELETE', url: `/v1/reviews/${review.id}`, key: tenant.key, store: target })).statusCode, 204)
  for (const media of review.media as Array<{ url: string }>) t.equal(await served(app, media.url), null, media.url)
  t.equal(await countIn(app, 'uploads', target), 2, 'the photo and the logo stay')
})

t.test('restoring the same backup with files again answers the first result and writes no second copy of a file', async (t) => {
  const { app, target, restore } = await backedUpStore(t)
  const first = await restore()
  const files = await filesOnDisk(app, target)
  const second = await restore()
  t.equal(second.statusCode, 200)
  t.same(second.json(), first.json())
  t.same(await filesOnDisk(app, target), files)
  t.equal(await countIn(app, 'uploads', target), 4)
})

t.test('a file of a few megabytes is written in parts of 48 KiB, each on a line of its own, ended by its size and SHA-256', async (t) => {
  const { app, bytes, backup } = await backedUpStore(t)
  const lines = await backupLines(app, backup.id)
  const video = lines.find((line) => line.table === 'uploads' && line.row.mime === 'video/mp4')!.row
  const parts = lines.filter((line) => line.file === video.id && !line.end)
  t.equal(parts.length, Math.ceil(VIDEO_BYTES / CHUNK_BYTES))
  t.same(parts.map((p) => p.part), parts.map((_, i) => i), 'numbered in order')
  t.ok(parts.every((p) => Buffer.from(p.data, 'base64').length <= CHUNK_BYTES), 'no part over 48 KiB')
  t.ok(Buffer.concat(parts.map((p) => Buffer.from(p.data, 'base64'))).equals(bytes.video))
  t.same(lines.find((line) => line.file === video.id && line.end), {
    file: video.id,
    end: true,
    parts: parts.length,
    size: VIDEO_BYTES,
    sha256: sha(bytes.video)
  })
  t.notOk('path' in video, 'the storage key is not exported')
  t.match(lines.at(-1), { end: true, files: { count: 4, bytes: VIDEO_BYTES + JPEG.length + PHOTO.length + PNG.length, missing: [] } })
})

t.test('a backup with an altered file part is refused with 409 and leaves the target without rows or files', async (t) => {
  const { app, backup, target, restore } = await backedUpStore(t)
  const lines = await backupLines(app, backup.id)
  // The last file's first part: the files before it have been written by then, and must be removed again.
  const last = [...lines].reverse().find((line) => 'file' in line && line.part === 0)!
  last.data = Buffer.from(Buffer.from(last.data, 'base64').map((b: number) => b ^ 0xff)).toString('base64')
  await rewriteBackup(app, backup.id, lines)
  const res = await restore()
  t.equal(res.statusCode, 409)
  t.same(errorBody(res), {
    code: 'conflict',
    message:
      `The file of upload ${last.file} in the backup does not match its size and SHA-256 (the backup is damaged); nothing was restored`
  })
  for (const table of ['uploads', 'reviews', 'gallery_photos', 'email_branding']) {
    t.equal(await countIn(app, table, target), 0, `no ${table}`)
  }
  t.same(await filesOnDisk(app, target), [], 'no file left in the target\'s storage')
  t.equal(await countIn(app, 'backup_restores', target), 0, 'not recorded as restored')
})

t.test('a backup holding a row twice is refused with 409 and leaves the target without rows or files', async (t) => {
  const { app, backup, target, restore } = await backedUpStore(t)
  const lines = await backupLines(app, backup.id)
  // A product (its id is made again: the platform's id repeats) and a review (its id repeats), after the files.
  for (const table of ['products', 'reviews']) {
    const at = lines.findIndex((line) => line.table === table)
    await rewriteBackup(app, backup.id, [...lines.slice(0, at + 1), lines[at], ...lines.slice(at + 1)])
    const res = await restore()
    t.equal(res.statusCode, 409, table)
    t.same(errorBody(res), {
      code: 'conflict',
      message: `The backup is damaged: it holds ${table} rows with the same key (a row twice); nothing was restored`
    })
    for (const { table: exported } of EXPORTED_TABLES) t.equal(await countIn(app, exported, target), 0, `no ${exported}`)
    t.same(await filesOnDisk(app, target), [], 'no file left in the target\'s storage')
    t.equal(await countIn(app, 'backup_restores', target), 0, 'not recorded as restored')
  }
  await rewriteBackup(app, backup.id, lines)
  t.equal((await restore()).statusCode, 200, 'the target takes the backup as it was made')
})

t.test('a backup cut short inside a file is refused, naming the upload', async (t) => {
  const { app, backup, target, restore } = await backedUpStore(t)
  const lines = await backupLines(app, backup.id)
  const cut = lines.findIndex((line) => 'file' in line && line.part === 1)
  await rewriteBackup(app, backup.id, lines.slice(0, cut))
  const res = await restore()
  t.equal(res.statusCode, 409)
  t.match(res.json().message, `the file of upload ${lines[cut].file} is cut short`)
  t.same(await filesOnDisk(app, target), [])
})

t.test('a backup whose lines are not JSON objects, or whose gzip stream is cut, is refused with 409 rather than failing', async (t) => {
  const { app, backup, target, restore } = await backedUpStore(t)
  const row = await app.services.db('backups').where({ id: backup.id }).first()
  const lines = await backupLines(app, backup.id)
  const text = lines.map((line) => JSON.stringify(line)).join('\n').replace('"part":1,', '"part":1,,')
  await writeFile(row.path, gzipSync(text))
  await app.services.db('backups').where({ id: backup.id }).update({ checksum: sha(await readFile(row.path)) })
  t.same(errorBody(await restore()), { code: 'conflict', message: 'The backup file is damaged: a line is not JSON' })
  const cut = (await readFile(row.path)).subarray(0, 20_000)
  await writeFile(row.path, cut)
  await app.services.db('backups').where({ id: backup.id }).update({ checksum: sha(cut) })
  t.same(errorBody(await restore()), { code: 'conflict', message: 'The backup file is damaged: it is not a complete gzip stream' })
  await rewriteBackup(app, backup.id, [lines[0], 5 as unknown as Record<string, unknown>, ...lines.slice(1)])
  t.same(errorBody(await restore()), { code: 'conflict', message: 'The backup file is damaged: a line is not a JSON object' })
  t.same(await filesOnDisk(app, target), [])
})

t.test('a backup file changed after it was made is refused by its checksum before anything is read', async (t) => {
  const { app, backup, target, restore } = await backedUpStore(t)
  const row = await app.services.db('backups').where({ id: backup.id }).first()
  const file = await readFile(row.path)
  file[file.length - 20] ^= 0xff
  await writeFile(row.path, file)
  const res = await restore()
  t.same(errorBody(res), { code: 'conflict', message: 'The backup file does not match its checksum' })
  t.same(await filesOnDisk(app, target), [])
})

t.test('a version 2 backup (no files) still restores, its rows naming the source\'s uploads as before', async (t) => {
  const { app, tenant, bytes, backup, target, restore } = await backedUpStore(t)
  const lines = (await backupLines(app, backup.id)).filter((line) => line.table !== 'uploads' && !('file' in line))
  lines[0] = { ...lines[0], version: 2, tables: lines[0].tables.filter((table: string) => table !== 'uploads') }
  const { uploads, ...counts } = lines.at(-1)!.counts
  lines[lines.length - 1] = { end: true, counts }
  await rewriteBackup(app, backup.id, lines)
  const res = await restore()
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().counts.uploads, 0)
  const source = await filesOf(app, tenant, tenant.storeId)
  const copy = await filesOf(app, tenant, target)
  t.same(copy.urls, source.urls, 'the same uploads, still served from the source store')
  t.ok((await served(app, copy.urls.video))?.equals(bytes.video))
  t.equal(await countIn(app, 'uploads', target), 0)
  t.equal(uploads, 4)
})

t.test('a file missing from storage is listed in the backup\'s footer; the backup completes and the restore leaves it out', async (t) => {
  const app = await build(t, { clock: tickingClock() })
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const { logoId } = await storeWithFiles(app, tenant)
  const logo = await app.services.db('uploads').where({ id: logoId }).first()
  await rm(join(app.services.config.dataDir, logo.path))
  const { backup } = await completedBackup(app, tenant)
  t.match(backup, { status: 'completed', counts: { uploads: 3 } })
  t.match((await backupLines(app, backup.id)).at(-1), {
    files: { count: 3, missing: [{ id: logoId, reason: 'The file is not in storage' }] }
  })
  const target = await makeStore(app, tenant)
  t.equal((await as(app, tenant)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })).statusCode, 200)
  const copy = await filesOf(app, tenant, target)
  t.equal(copy.urls.logo, null, 'the restored branding names no file that is not there')
  t.equal(await countIn(app, 'uploads', target), 3)
})

t.test('a backup that fails while copying a file is failed, and leaves neither its file nor the rows it had read on disk', async (t) => {
  const app = await build(t, { clock: tickingClock() })
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const { logoId } = await storeWithFiles(app, tenant)
  // The logo's file becomes a folder: opened, it cannot be read.
  const logo = await app.services.db('uploads').where({ id: logoId }).first()
  await rm(join(app.services.config.dataDir, logo.path))
  await mkdir(join(app.services.config.dataDir, logo.path))
  const { backup } = await completedBackup(app, tenant)
  t.match(backup, { status: 'failed', error: /^The export failed: / })
  t.same(await readdir(join(app.services.config.dataDir, 'backups', tenant.storeId)), [])
})

t.test('a backup never reads another store\'s files, even through an upload row naming one', async (t) => {
  const app = await build(t, { clock: tickingClock() })
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const other = await makeTenant(app, { origins: ['https://shop.example'] })
  await storeWithFiles(app, tenant)
  const theirs = await storeWithFiles(app, other)
  const their = await app.services.db('uploads').where({ id: theirs.logoId }).first()
  const mine = await app.services.db('uploads').where({ store_env_id: tenant.storeId, mime: 'image/png' }).first()
  await app.services.db('uploads').where({ id: mine.id }).update({ path: their.path })
  const { backup } = await completedBackup(app, tenant)
  const lines = await backupLines(app, backup.id)
  t.match(lines.at(-1), { files: { count: 3, missing: [{ id: mine.id, reason: 'The file is stored outside the store\'s folder' }] } })
  t.notOk(lines.some((line) => line.file === mine.id), 'no part of the other store\'s file')
  t.notOk(JSON.stringify(lines).includes(other.storeId), 'nothing of the other store')

  const target = await makeStore(app, tenant)
  t.equal((await as(app, tenant)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: target })).statusCode, 200)
  const keys = (await app.services.db('uploads').where({ store_env_id: target }).pluck('path')) as string[]
  t.ok(keys.every((key) => key.startsWith(`uploads/${target}/`)), 'written only under the target\'s folder')
  t.equal(
    (await as(app, other)('POST', `/v1/backups/${backup.id}/restore`, { targetStoreEnvId: other.storeId })).json().code,
    'not_found',
    'another organization cannot restore it'
  )
})

t.test('uploads restored from a backup made before uploads were marked as used count as used, not abandoned', async (t) => {
  const { app, tenant, backup, target, restore } = await backedUpStore(t)
  const lines = await backupLines(app, backup.id)
  for (const line of lines) if (line.table === 'uploads') delete line.row.attached_at
  await rewriteBackup(app, backup.id, lines)
  t.equal((await restore()).statusCode, 200)
  t.equal(await countIn(app, 'uploads', target), 4)
  t.equal(Number((await app.services.db('uploads').where({ store_env_id: target }).whereNull('attached_at').count({ n: '*' }))[0].n), 0)
  t.equal(await countIn(app, 'uploads', tenant.storeId), 4)
})
