import type { AccountService } from '../account/account.service.js'
import type { PeopleRepository } from '../account/people.repository.js'
import type { ApiKeysService } from '../api-keys/api-keys.service.js'
import type { InvitationsService } from './invitations.service.js'

/** The services the admin pages call: the API's own, so both follow one set of rules. */
export interface AdminServices {
  people: PeopleRepository
  keys: ApiKeysService
  account: AccountService
  invitations: InvitationsService
}
