import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { makeTenant } from '../factories.js'

const good = { productId: 'p1', rating: 5, body: 'Fine', authorName: 'Ann', writtenAt: '2020-01-01T00:00:00Z' }

async function imported (items: unknown[]) {
  const app = await sharedApp()
  const tenant = await makeTenant(app)
  const res = await call(app, {
    method: 'POST',
    url: '/v1/imports',
    key: tenant.key,
    store: tenant.storeId,
    payload: { type: 'reviews', items }
  })
  const listed = (await call(app, { method: 'GET', url: '/v1/imports', key: tenant.key, store: tenant.storeId })).json().data[0]
  return { res, listed }
}

t.test('an import in which every item fails has status failed, in its answer and in the list', async (t) => {
  const { res, listed } = await imported([{ ...good, rating: 9 }, { productId: 'p2' }])
  t.equal(res.statusCode, 201)
  t.match(res.json(), { status: 'failed', received: 2, imported: 0, failed: 2 })
  t.equal(listed.status, 'failed')
})

t.test('an import with some items refused has status partial; one with none refused, completed', async (t) => {
  t.equal((await imported([good, { ...good, rating: 0 }])).res.json().status, 'partial')
  t.equal((await imported([good])).res.json().status, 'completed')
})
