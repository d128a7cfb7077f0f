import { errors } from '../../../errors.js'
import type { Credential, StoreEnv } from '../../../types.js'
import type { PeopleRepository } from '../../account/index.js'
import { assertMayReadEvent } from '../../events/index.js'
import { TRIGGERS, triggerFor, type TriggerDefinition } from '../catalogue.js'
import { MarkedCache } from '../../../lib/marked-cache.js'
import { toItem } from '../items.js'
import type { TriggersRepository } from './triggers.repository.js'

export const DEFAULT_POLL_LIMIT = 50
export const MAX_POLL_LIMIT = 100

interface Deps { repo: TriggersRepository, people: PeopleRepository }

/** A sample is an item like any other, made from the catalogue's sample data and a fixed event. */
function sampleOf (trigger: TriggerDefinition, index: number) {
  return toItem({ id: `evt_${1042 + index}`, type: trigger.key, createdAt: '2026-11-20T14:03:12.000Z', data: trigger.sampleData })
}

const CATALOGUE = TRIGGERS.map((trigger, index) => ({
  key: trigger.key,
  label: trigger.label,
  description: trigger.description,
  resource: trigger.resource,
  sample: sampleOf(trigger, index)
}))

/** docs/contract/connectors.md, except hooks and connections (their own modules). */
export function triggersService ({ repo, people }: Deps) {
  // Polls as answered under the store's events marker: a poll that finds nothing new costs no query.
  const polls = new MarkedCache<ReturnType<typeof toItem>[]>(200)
  return {
    /** For connection tests and connection labels. */
    async me (credential: Credential, store: StoreEnv) {
      const organization = await people.findOrganization(credential.orgId)
      const person = credential.personId ? await people.findPerson(credential.personId) : null
      return {
        organization: { id: credential.orgId, name: organization?.name ?? '' },
        storeEnv: { id: store.id, name: store.name, plan: store.plan },
        credential: {
          // The /v1 pipeline only admits API keys and OAuth tokens; 'person' credentials live in the admin app.
          type: credential.type === 'oauth' ? 'oauth' as const : 'api_key' as const,
          role: credential.role,
          scopes: credential.scopes,
          person: person ? { id: person.id, email: person.email, name: person.name } : null
        }
      }
    },

    catalogue () {
      return CATALOGUE
    },

    async poll (credential: Credential, store: StoreEnv, eventType: string, limit: number | undefined, seen: string | null = null) {
      const trigger = triggerFor(eventType)
      if (!trigger) throw new errors.NotFound(`Event type ${eventType}`)
      // The role and a read scope on the event's resource, not on `connectors`
      // (docs/contract/event-visibility.md#who-sees-which-events and docs/contract/connectors.md#connector-scopes).
      assertMayReadEvent(credential, trigger.key)
      const size = Math.min(MAX_POLL_LIMIT, Math.max(1, Math.floor(limit ?? DEFAULT_POLL_LIMIT)))
      return polls.through(
        `${store.id}\0${trigger.key}\0${size}`,
        seen,
        async () => (await repo.newest(store.id, trigger.key, size)).map(toItem)
      )
    }
  }
}
export type TriggersService = ReturnType<typeof triggersService>
