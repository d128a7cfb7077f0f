import t from 'tap'
import { inspect } from 'node:util'
import { maskUrl, maskUrlsIn } from '../../src/lib/masked-url.js'

t.test('maskUrl replaces the password and keeps the rest as written', async (t) => {
  t.equal(maskUrl('mysql://root:S3cret@db.internal:3306/app'), 'mysql://root:***@db.internal:3306/app')
  t.equal(maskUrl('https://user:S3cret@api.example/v1?x=1'), 'https://user:***@api.example/v1?x=1')
  t.equal(maskUrl('smtps://mailer:S3cret@smtp.example:465'), 'smtps://mailer:***@smtp.example:465')
})

t.test('maskUrl leaves URLs without a password as they are', async (t) => {
  for (
    const url of [
      'mysql://root@127.0.0.1:3306/test',
      'redis://127.0.0.1:6379',
      'mysql://root:@db/app',
      'https://api.example/users/@me',
      '',
      'not a url'
    ]
  ) {
    t.equal(maskUrl(url), url, url)
  }
})

t.test('maskUrl masks a Redis password given without a user, and keeps a user given without a password', async (t) => {
  t.equal(maskUrl('redis://:S3cret@cache:6379/0'), 'redis://:***@cache:6379/0')
  t.equal(maskUrl('rediss://default:S3cret@cache:6380'), 'rediss://default:***@cache:6380')
  t.equal(maskUrl('redis://alice@cache:6379'), 'redis://alice@cache:6379')
})

t.test('maskUrl masks a password in a URL with an IPv6 host, whole or cut off', async (t) => {
  t.equal(maskUrl('mysql://root:S3cret@[::1]:3306/app'), 'mysql://root:***@[::1]:3306/app')
  t.equal(maskUrl('mysql://root:S3cret@[::1'), 'mysql://root:***@[::1')
  t.equal(maskUrl('redis://:S3cret@[fe80::1%25eth0]:6379'), 'redis://:***@[fe80::1%25eth0]:6379')
})

t.test('maskUrl masks a percent-encoded password whole, so neither form shows', async (t) => {
  const masked = maskUrl('mysql://root:S%40c%3Aret%2F@db/app')
  t.equal(masked, 'mysql://root:***@db/app')
  t.notMatch(masked, /S%40|S@c|ret/)
})

t.test('maskUrl masks a password holding unescaped @, / or # whatever a parser makes of it', async (t) => {
  t.equal(maskUrl('mysql://root:p@ss@db/app'), 'mysql://root:***@db/app')
  t.equal(maskUrl('mysql://root:a/b#c@db/app'), 'mysql://root:***@db/app')
  t.equal(maskUrl('https://u:a\\b@api.example/'), 'https://u:***@api.example/')
})

t.test('maskUrl masks credentials in a string with no scheme', async (t) => {
  t.equal(maskUrl('root:S3cret@db.internal:3306/app'), 'root:***@db.internal:3306/app')
  t.equal(maskUrl('db.internal:3306'), 'db.internal:3306')
})

t.test('maskUrl masks a password in strings no URL parser takes', async (t) => {
  t.equal(maskUrl('mysql://root:S3cret@db:port/app'), 'mysql://root:***@db:port/app')
  t.equal(maskUrl('redis://u:S3cret@@'), 'redis://u:***@')
  t.equal(maskUrl('mysql://root:S3 cret@db'), 'mysql://root:***@db')
})

t.test('maskUrlsIn masks every URL in an error as inspect prints it, and nothing else', async (t) => {
  const err = Object.assign(new TypeError('Invalid URL'), { code: 'ERR_INVALID_URL', input: 'mysql://root:S3cret@[::1' })
  const text = inspect(err)
  t.match(text, 'S3cret', 'the raw error carries the password')
  const masked = maskUrlsIn(text)
  t.notMatch(masked, 'S3cret')
  t.match(masked, "input: 'mysql://root:***@[::1'")
  t.match(masked, 'TypeError: Invalid URL')
})

t.test('maskUrlsIn masks URLs in a JSON log line and leaves email addresses and other fields alone', async (t) => {
  const line = JSON.stringify({
    msg: 'failed',
    url: 'redis://:S3cret@cache:6379',
    to: 'ops@example.test',
    note: 'see https://docs.example/x'
  })
  const masked = JSON.parse(maskUrlsIn(line))
  t.same(masked, { msg: 'failed', url: 'redis://:***@cache:6379', to: 'ops@example.test', note: 'see https://docs.example/x' })
  t.equal(maskUrlsIn('two: smtp://a:one@h and mysql://b:two@h.'), 'two: smtp://a:***@h and mysql://b:***@h.')
})
