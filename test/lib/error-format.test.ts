import t from 'tap'
import { prefersProblem, problemTitle, requestIdFrom } from '../../src/lib/error-format.js'
import { bearerChallenge } from '../../src/lib/bearer-challenge.js'

t.test('problem details are preferred only when Accept names application/problem+json above application/json', async (t) => {
  t.equal(prefersProblem(undefined), false)
  t.equal(prefersProblem('*/*'), false)
  t.equal(prefersProblem('application/*'), false)
  t.equal(prefersProblem('application/problem+json'), true)
  t.equal(prefersProblem('Application/Problem+JSON'), true)
  t.equal(prefersProblem('application/problem+json;q=0'), false)
  t.equal(prefersProblem('application/problem+json; q=0.8, application/json; q=0.9'), false)
  t.equal(prefersProblem('application/problem+json; q=0.9, application/json; q=0.8'), true)
  t.equal(prefersProblem('application/problem+json, application/json'), true)
  t.equal(prefersProblem('application/json, application/problem+json'), false)
  t.equal(prefersProblem('application/problem+json, application/*'), true)
  t.equal(prefersProblem('application/problem+json;q=abc'), false)
  t.equal(prefersProblem(['text/html', 'application/problem+json']), true)
})

t.test('a title is the code as words', async (t) => {
  t.equal(problemTitle('rate_limited'), 'Rate limited')
  t.equal(problemTitle('not_found'), 'Not found')
})

t.test('a safe client request id is kept, anything else is replaced', async (t) => {
  t.equal(requestIdFrom('abc.DEF_1:2-3'), 'abc.DEF_1:2-3')
  t.match(requestIdFrom(undefined), /^req_/)
  t.match(requestIdFrom(''), /^req_/)
  t.match(requestIdFrom(['a', 'b']), /^req_/)
  t.match(requestIdFrom('a/b'), /^req_/)
  t.match(requestIdFrom('x'.repeat(65)), /^req_/)
})

t.test('the bearer challenge quotes only characters RFC 6750 allows in its values', async (t) => {
  t.equal(bearerChallenge(), 'Bearer realm="evidence-hub"')
  t.equal(
    bearerChallenge({ invalid: { description: 'bad "quoted" \\ value' } }),
    'Bearer realm="evidence-hub", error="invalid_token", error_description="bad quoted  value"'
  )
})
