import type { AccountService } from '../account/account.service.js'
import type { PeopleRepository } from '../account/people.repository.js'
import type { ApiKeysService } from '../api-keys/api-keys.service.js'
import type { InvitationsService } from './invitations.service.js'
import type { OutboundWebhooksService } from '../outbound-webhooks/outbound-webhooks.service.js'
import type { ConnectionsService } from '../connectors/connections/connections.service.js'
import type { GrantsRepository } from '../connectors/connections/grants.repository.js'
import type { OauthClients } from '../connectors/connections/oauth-clients.repository.js'

/** The services the admin pages call: the API's own, so both follow one set of rules. */
export interface AdminServices {
  people: PeopleRepository
  keys: ApiKeysService
  account: AccountService
  invitations: InvitationsService
  webhooks: OutboundWebhooksService
  connections: ConnectionsService
  grants: GrantsRepository
  clients: OauthClients
}
