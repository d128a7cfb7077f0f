import t from 'tap'
import { call } from '../helper.js'
import { clockedReviewApp } from './setup.js'

const ROUNDS = 8

t.test('two editors sending the same If-Match at once: exactly one change is applied, the other gets 412', async (t) => {
  const { app, clock, as, id } = await clockedReviewApp(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const headers = { authorization: `Bearer ${as.key}`, 'x-store-env-id': as.store, 'content-type': 'application/json' }
  for (let round = 0; round < ROUNDS; round++) {
    // A minute between rounds keeps the editors under the per-credential rate limit.
    clock.advance(61_000)
    const etag = String((await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).headers.etag)
    const edit = (editor: string) => fetch(`${base}/v1/reviews/${id}`, {
      method: 'PATCH',
      headers: { ...headers, 'if-match': etag },
      body: JSON.stringify({ reply: `${editor} ${round}` })
    }).then(async (res) => ({ editor, status: res.status, body: await res.json() }))
    const answers = await Promise.all([edit('A'), edit('B')])
    const statuses = answers.map((a) => a.status).sort()
    t.same(statuses, [200, 412], `round ${round}`)
    const winner = answers.find((a) => a.status === 200)
    const loser = answers.find((a) => a.status === 412)
    t.equal(loser?.body.code, 'precondition_failed')
    const final = (await call(app, { method: 'GET', url: `/v1/reviews/${id}`, ...as })).json()
    t.equal(final.reply?.body, `${winner?.editor} ${round}`, `round ${round}: the winner's change, whole`)
  }
})
