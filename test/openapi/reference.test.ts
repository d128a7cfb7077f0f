import t from 'tap'
import { readFileSync } from 'node:fs'
import { currentDocument, renderReference } from '../../scripts/reference.js'

t.test('docs/reference.md is what `npm run docs` writes from the current code', async (t) => {
  const written = readFileSync('docs/reference.md', 'utf8')
  t.equal(written, renderReference(await currentDocument()), 'run `npm run docs` and commit docs/reference.md')
})
