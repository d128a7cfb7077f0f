import t from 'tap'
import { sharedApp } from '../helper.js'

t.test('the document declares the backup download as application/gzip, the type the server sends, not JSON', async (t) => {
  const app = await sharedApp()
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  const ok = doc.paths['/v1/backups/{id}/download'].get.responses['200']
  t.same(Object.keys(ok.content), ['application/gzip'])
  t.match(ok.content['application/gzip'].schema, { type: 'string', format: 'binary' })
})
