import t from 'tap'
import { clip, prefix } from '../../src/lib/text.js'

const EMOJI = '😀'

t.test('prefix keeps the first characters, counting a 4-byte character once, and never half of one', async (t) => {
  t.equal(prefix('abc', 5), 'abc')
  t.equal(prefix(EMOJI.repeat(3), 2), EMOJI.repeat(2))
  t.equal(prefix(`a${EMOJI}b`, 2), `a${EMOJI}`)
  t.notMatch(prefix(`a${EMOJI.repeat(10)}`, 4), /[\uD800-\uDBFF]$/)
})

t.test('clip marks a cut with an ellipsis and stays within the maximum in characters', async (t) => {
  t.equal(clip('abc', 3), 'abc')
  t.equal(clip(EMOJI.repeat(5), 3), `${EMOJI.repeat(2)}…`)
  t.equal(Array.from(clip(EMOJI.repeat(400), 300)).length, 300)
})
