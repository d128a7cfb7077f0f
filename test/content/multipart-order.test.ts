import t from 'tap'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { build, call, manualClock } from '../helper.js'
import { makeTenant } from '../factories.js'
import { formData, JPEG } from './multipart.js'

/**
 * Issue 45, point 14: a multipart photo's text fields get the same checks whether they come before or after the
 * file. A caption sent after the image used to be dropped unchecked, so 70,000 characters answered 201: the handler
 * had the file, and the fields read so far, before the rest of the body arrived. So these requests go over a socket,
 * and the body is written in two pieces with a pause between, as a slow network delivers it.
 */

const clock = manualClock()
let listening: Promise<{ app: FastifyInstance, origin: string }> | undefined

function server () {
  listening ??= build(t, { clock }).then(async (app) => ({ app, origin: await app.listen({ port: 0, host: '127.0.0.1' }) }))
  return listening
}

async function * inTwoPieces (payload: Buffer) {
  const half = Math.floor(payload.length / 2)
  yield payload.subarray(0, half)
  await sleep(50)
  yield payload.subarray(half)
}

async function gallery () {
  const { app, origin } = await server()
  const tenant = await makeTenant(app, { origins: ['https://shop.example'] })
  const created = await call(app, {
    method: 'POST',
    url: '/v1/galleries',
    key: tenant.key,
    store: tenant.storeId,
    payload: { name: 'Worn by you', status: 'published' }
  })
  const id = created.json().id as string
  // The photo is large enough that its part is handed over before the fields behind it are read.
  const photo = Buffer.concat([JPEG, Buffer.alloc(256 * 1024)])
  const send = async (fields: Record<string, string>, order: 'before' | 'after') => {
    clock.advance(3_600_000)
    const { payload, headers } = formData({ filename: 'me.jpg', type: 'image/jpeg', bytes: photo }, fields, order)
    const res = await request(`${origin}/v1/galleries/${id}/photos`, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(payload.length), origin: 'https://shop.example', 'x-store-env-id': tenant.storeId },
      body: Readable.from(inTwoPieces(payload))
    })
    const body = await res.body.text()
    return { statusCode: res.statusCode, body, json: () => JSON.parse(body) }
  }
  const stored = async () => Number((await app.db('gallery_photos').where({ store_env_id: tenant.storeId }).count({ n: '*' }))[0].n)
  const captions = async () =>
    (await app.db('gallery_photos').where({ store_env_id: tenant.storeId }).select('caption', 'author_name')).map((
      r
    ) => [r.caption, r.author_name])
  return { send, stored, captions }
}

for (const order of ['before', 'after'] as const) {
  t.test(`a caption of 600 characters ${order} the image is refused with invalid_request and nothing is stored`, async (t) => {
    const { send, stored } = await gallery()
    const res = await send({ caption: 'c'.repeat(600) }, order)
    t.equal(res.statusCode, 400, res.body)
    t.match(res.json(), { code: 'invalid_request', message: /caption/ })
    t.equal(await stored(), 0)
  })

  t.test(`a caption of 70,000 characters ${order} the image is refused with invalid_request and nothing is stored`, async (t) => {
    const { send, stored } = await gallery()
    const res = await send({ caption: 'c'.repeat(70_000) }, order)
    t.equal(res.statusCode, 400, res.body)
    t.match(res.json(), { code: 'invalid_request', message: /caption/ })
    t.equal(await stored(), 0)
  })

  t.test(`an author email that is not an address ${order} the image is refused with invalid_request`, async (t) => {
    const { send } = await gallery()
    const res = await send({ authorEmail: 'nope' }, order)
    t.equal(res.statusCode, 400, res.body)
    t.match(res.json(), { code: 'invalid_request', message: /authorEmail/ })
  })

  t.test(`valid text fields ${order} the image are stored with the photo`, async (t) => {
    const { send, captions } = await gallery()
    const res = await send({ caption: 'Beach day', authorName: 'Ann' }, order)
    t.equal(res.statusCode, 201, res.body)
    t.same(await captions(), [['Beach day', 'Ann']])
  })
}

t.test('a caption of 500 four-byte characters is accepted, and of 501 is refused, though both are cut at the field size', async (t) => {
  const { send } = await gallery()
  t.equal((await send({ caption: '𝔘'.repeat(500) }, 'after')).statusCode, 201)
  t.equal((await send({ caption: '𝔘'.repeat(501) }, 'after')).statusCode, 400)
})
