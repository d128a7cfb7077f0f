import t from 'tap'
import { assertMayReadEvent, mayReadEvent, visibleEventTypes } from '../../src/modules/events/event-access.js'
// The permission registry is the modules' declarations: without them no resource exists (and, run alone, this file
// then saw every rule refuse; in a bundle another file had loaded them).
import '../../src/modules/index.js'

/**
 * The rules for a type no resource is known for (an event type added before its resource's rules, or a row of a
 * type since retired): only a credential that reads every resource sees it. Every type the service emits today
 * has a resource, so the routes never reach these branches; they are checked here, where they are written.
 */

t.test('an event type without a known resource is readable by a credential that reads every resource', async (t) => {
  t.equal(mayReadEvent({ role: 'admin', scopes: ['read'] }, 'mystery.created'), true)
  t.equal(mayReadEvent({ role: 'owner', scopes: [] }, 'mystery.created'), true)
})

t.test('an event type without a known resource is hidden from a credential that misses one resource', async (t) => {
  t.equal(mayReadEvent({ role: 'editor', scopes: ['read'] }, 'mystery.created'), false, 'an editor cannot read api keys or billing')
  t.equal(mayReadEvent({ role: 'admin', scopes: ['reviews:read', 'orders:read'] }, 'mystery.created'), false)
})

t.test('refusing an event type without a known resource names the event log', async (t) => {
  t.throws(() => assertMayReadEvent({ role: 'admin', scopes: ['reviews:read'] }, 'mystery.created'), {
    code: 'INSUFFICIENT_SCOPE', message: "The credential's scopes do not allow read on events"
  })
})

t.test('the visible types are the same whether worked out or remembered', async (t) => {
  const reader = { role: 'editor' as const, scopes: ['reviews:read', 'orders:read'] }
  const first = visibleEventTypes(reader)
  t.ok(first?.includes('review.created') && first.includes('order.upserted'))
  t.notOk(first?.includes('product.upserted'))
  t.same(visibleEventTypes({ ...reader, scopes: [...reader.scopes] }), first)
  t.equal(visibleEventTypes({ role: 'admin', scopes: ['read'] }), undefined, 'every type, also those added later')
})
