import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import type { Clock } from '../../lib/clock.js'
import { generatePassword, type PasswordHasher } from '../../lib/passwords.js'
import { PERSON_ROLES, type Role } from '../../lib/permissions.js'
import type { Plan, SubscriptionStatus } from '../../types.js'
import type { ApiKeysService } from '../api-keys/index.js'
import type { AuditRepository } from '../audit/index.js'
import type { PeopleRepository } from './people.repository.js'
import { checkedOrigins, replaceStoreOrigins } from './store-origins.js'
import type { StoresRepository } from './stores.repository.js'
import { marker, type Freshness } from '../../lib/freshness.js'

interface Deps {
  db: Knex
  people: PeopleRepository
  stores: StoresRepository
  audit: AuditRepository
  keys: ApiKeysService
  clock: Clock
  hash: PasswordHasher
  fresh: Freshness
}

/**
 * Operator set-up without the admin application (docs/contract/operations.md#operator-command-line): used by the CLI
 * and the first-run seed.
 */
export function bootstrapService ({ db, people, stores, audit, keys, clock, hash, fresh }: Deps) {
  async function addMember (orgId: string, email: string, role: Role) {
    if (!(PERSON_ROLES as readonly string[]).includes(role)) {
      throw new errors.InvalidRequest(`A person's role is owner, admin or editor, not ${role}`)
    }
    if (!await people.findOrganization(orgId)) throw new errors.NotFound('Organization')
    const now = clock()
    const existing = await people.findPersonByEmail(email)
    const password = existing ? null : generatePassword()
    const person = existing ?? await people.createPerson({ email, passwordHash: await hash.hash(password!), now })
    if (await people.membershipRole(orgId, person.id)) throw new errors.Conflict(`${email} is already a member`)
    await people.addMembership(orgId, person.id, role, now)
    // Every change to a person's memberships moves their marker (lib/freshness.ts), additions included.
    await fresh.bump([marker.person(person.id)])
    return { person: { id: person.id, email: person.email, password } }
  }

  return {
    addMember,

    async bootstrap (input: { org: string, store: string, owner: string, plan?: Plan, origins?: string[] }) {
      const allowedOrigins = checkedOrigins(input.origins ?? [])
      const now = clock()
      const org = await people.createOrganization(input.org, now)
      const { person } = await addMember(org.id, input.owner, 'owner')
      const store = await stores.create({ orgId: org.id, name: input.store, plan: input.plan ?? 'growth', allowedOrigins, now })
      const key = await keys.create({ type: 'cli', orgId: org.id, role: 'admin', scopes: [] }, {
        name: 'Bootstrap admin key',
        role: 'admin'
      }, null)
      return { organization: { id: org.id }, store: { id: store.id }, owner: person, apiKey: { id: key.id, secret: key.secret } }
    },

    async createStore (input: { org: string, name: string, plan?: Plan, origins?: string[] }) {
      const allowedOrigins = checkedOrigins(input.origins ?? [])
      if (!await people.findOrganization(input.org)) throw new errors.NotFound('Organization')
      const store = await stores.create({ orgId: input.org, name: input.name, plan: input.plan ?? 'free', allowedOrigins, now: clock() })
      return { store: { id: store.id } }
    },

    async setPlan (input: { store: string, plan: Plan, status?: SubscriptionStatus }) {
      const store = await stores.setPlan(input.store, input.plan, input.status)
      if (!store) throw new errors.NotFound('Store environment')
      // A lapse or downgrade refuses the store's next request on every instance (pipeline/check-access.ts).
      await fresh.bump([marker.store(store.id)])
      return { store: { id: store.id, plan: store.plan, status: store.subscriptionStatus } }
    },

    /** The operator's way to replace a store's allowed origins; audited with the actor `cli`. */
    async setOrigins (input: { store: string, origins: string[] }) {
      const store = await stores.find(input.store)
      if (!store) throw new errors.NotFound('Store environment')
      const origins = await replaceStoreOrigins({ db, stores, audit, fresh }, store, input.origins, 'cli', null)
      return { store: { id: store.id, origins } }
    },

    async isEmpty () {
      const row = await db('organizations').first('id')
      return !row
    }
  }
}
