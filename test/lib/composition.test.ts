import t from 'tap'
import knex, { type Knex } from 'knex'
import { buildServices } from '../../src/services.js'
import { MODULES } from '../../src/modules/index.js'
import type { ModuleManifest } from '../../src/lib/module.js'
import { manualClock, testConfig } from '../helper.js'

/** Manifests made up for these tests: their service names are not those of the real modules, so they go untyped. */
function made (manifest: Record<string, unknown>): ModuleManifest {
  return manifest as unknown as ModuleManifest
}

let db: Knex
t.before(() => { db = knex({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true }) })
t.teardown(() => db.destroy())

function compose (modules: ModuleManifest[]) {
  return buildServices(
    { db, clock: manualClock(), config: testConfig({ databaseUrl: undefined, redisUrl: undefined }), redis: null },
    modules
  ) as unknown as Record<string, unknown>
}

t.test('a module builds its service from another module\'s, named, whatever the order of the list', async (t) => {
  const services = compose([
    made({ name: 'greeting', services: { greeting: ({ name }: { name: string }) => `hello ${name}` } }),
    made({ name: 'name', services: { name: () => 'store' } })
  ])
  t.equal(services.greeting, 'hello store')
})

t.test('every service is built once and shared', async (t) => {
  let built = 0
  const services = compose([
    made({ name: 'counter', services: { counter: () => ({ n: ++built }) } }),
    made({ name: 'a', services: { a: ({ counter }: { counter: object }) => counter } }),
    made({ name: 'b', services: { b: ({ counter }: { counter: object }) => counter } })
  ])
  t.equal(built, 1)
  t.equal(services.a, services.b)
})

t.test('a service two modules provide is refused at start', async (t) => {
  t.throws(() => compose([
    made({ name: 'one', services: { shared: () => 1 } }),
    made({ name: 'two', services: { shared: () => 2 } })
  ]), /Module two provides "shared", which is already provided/)
})

t.test('a module cannot replace what the composition root provides', async (t) => {
  t.throws(() => compose([made({ name: 'sneaky', services: { db: () => null } })]), /Module sneaky provides "db"/)
})

t.test('services that need each other fail at start', async (t) => {
  t.throws(() => compose([
    made({ name: 'a', services: { a: ({ b }: { b: unknown }) => b } }),
    made({ name: 'b', services: { b: ({ a }: { a: unknown }) => a } })
  ]), /Could not build the service "a": .*Cyclic dependencies/s)
})

t.test('a service naming one nobody provides fails at start, naming it', async (t) => {
  t.throws(
    () => compose([made({ name: 'lonely', services: { lonely: ({ missing }: { missing: unknown }) => missing } })]),
    /Could not build the service "lonely": .*missing/s
  )
})

t.test('a reaction to an event no module emits is refused at start', async (t) => {
  t.throws(() =>
    compose([
      made({
        name: 'listener',
        reactions: (bus: { on: (name: string, reaction: () => Promise<void>) => void }) => bus.on('review.published', async () => {})
      })
    ]), /Module listener reacts to "review.published", which no module emits/)
})

t.test('reactions run in the order of the module list, and each answer comes back to the emitter', async (t) => {
  const heard: string[] = []
  const react = (who: string) => (bus: { on: (name: string, reaction: () => Promise<string>) => void }) => {
    bus.on('review.published', async () => { heard.push(who); return who })
  }
  const services = compose([
    made({ name: 'emitter', emits: ['review.published'] }),
    made({ name: 'second', reactions: react('second') }),
    made({ name: 'first', reactions: react('first') })
  ])
  const bus = services.bus as { emit: (name: string, trx: unknown, payload: unknown) => Promise<string[]> }
  t.same(await bus.emit('review.published', null, {}), ['second', 'first'])
  t.same(heard, ['second', 'first'])
})

t.test('the real modules compose: every reaction listens to an event a module emits', async (t) => {
  const services = compose([...MODULES])
  t.ok(services.reviews && services.delivery && services.mailSender)
})
