import t from 'tap'
import { argon2Hasher, defaultHasher } from '../../src/lib/passwords.js'
import { build, costOf, testHasher } from '../helper.js'
import { makeTenant } from '../factories.js'

t.test('production hashes passwords with argon2id at 64 MiB and 3 passes', async (t) => {
  t.same(costOf(await defaultHasher.hash('correct horse battery')), { type: 'argon2id', m: 65536, t: 3, p: 4 })
})

t.test('tests hash with argon2id at its lowest cost', async (t) => {
  t.same(costOf(await testHasher.hash('correct horse battery')), { type: 'argon2id', m: 1024, t: 1, p: 1 })
})

t.test('a hasher verifies the right password and rejects a wrong one', async (t) => {
  const hasher = argon2Hasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 })
  const hash = await hasher.hash('correct horse battery')
  t.equal(await hasher.verify(hash, 'correct horse battery'), true)
  t.equal(await hasher.verify(hash, 'wrong horse battery'), false)
})

t.test('a missing or malformed hash verifies as false, not as an error', async (t) => {
  t.equal(await testHasher.verify(null, 'anything'), false)
  t.equal(await testHasher.verify(undefined, ''), false)
  t.equal(await testHasher.verify('not a hash', 'anything'), false)
})

t.test('an app stores and checks passwords with the hasher it is given', async (t) => {
  const app = await build(t)
  const tenant = await makeTenant(app)
  const person = await app.db('people').where({ id: tenant.owner.id }).first()
  t.same(costOf(person.password_hash), { type: 'argon2id', m: 1024, t: 1, p: 1 })
  t.ok(await app.sessions.authenticate(tenant.owner.email, tenant.owner.password, '198.51.100.7'), 'the owner signs in')
})
