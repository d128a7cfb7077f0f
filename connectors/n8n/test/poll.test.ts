import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { IDataObject } from 'n8n-workflow'
import { makeTenant } from '../../../test/factories.js'
import { sharedApp } from '../../../test/helper.js'
import { appendEvent } from '../../../test/webhooks/support.js'
import { fakeContext } from './context.js'
import { EvidenceHubPollTrigger } from './package.js'

const listening = new WeakMap<FastifyInstance, Promise<string>>()

async function setUp (event: string) {
  const app = await sharedApp()
  if (!listening.has(app)) listening.set(app, app.listen({ port: 0, host: '127.0.0.1' }))
  const base = await listening.get(app)!
  const tenant = await makeTenant(app)
  const staticData: IDataObject = {}
  const poll = async (mode = 'trigger') => {
    const out = await new EvidenceHubPollTrigger().poll.call(
      fakeContext({ connection: { base, key: tenant.key, storeId: tenant.storeId }, parameters: { event }, staticData, mode })
    )
    return out === null ? null : out[0].map((item) => item.json)
  }
  return { app, tenant, poll, append: (data: Record<string, unknown>) => appendEvent(app, tenant, event, data) }
}

t.test('the first poll starts nothing however long the history; later polls start exactly the new events, newest first', async (t) => {
  const s = await setUp('order.upserted')
  for (let n = 0; n < 3; n++) await s.append({ platformOrderId: `old-${n}` })
  t.equal(await s.poll(), null, 'history does not flood the workflow')
  const first = await s.append({ platformOrderId: 'new-1' })
  const second = await s.append({ platformOrderId: 'new-2' })
  t.same((await s.poll())?.map((item) => item.id), [second.id, first.id])
  t.equal(await s.poll(), null, 'nothing twice')
  const third = await s.append({ platformOrderId: 'new-3' })
  t.same((await s.poll())?.map((item) => item.platformOrderId), ['new-3'])
  t.equal(third.type, 'order.upserted')
})

t.test('after a first poll of a store without such events, the first event starts the workflow', async (t) => {
  const s = await setUp('review.created')
  t.equal(await s.poll(), null)
  const event = await s.append({ id: 'rev_1', rating: 4 })
  t.match(await s.poll(), [{ id: event.id, type: 'review.created', reviewId: 'rev_1', rating: 4 }])
})

t.test('Fetch Test Event shows the newest event and moves no cursor', async (t) => {
  const s = await setUp('review.created')
  await s.append({ id: 'rev_1' })
  const newest = await s.append({ id: 'rev_2' })
  t.same((await s.poll('manual'))?.map((item) => item.id), [newest.id])
  t.equal(await s.poll(), null, 'the first real poll still only takes note')
})
