import type { AccountService, PeopleRepository } from '../account/index.js'
import type { ApiKeysService } from '../api-keys/index.js'
import type { InvitationsService } from './invitations.service.js'
import type { EmailProvidersService, OutboundWebhooksService, WebhookOperations } from '../delivery/index.js'
import type { ConnectionsService, GrantsRepository, OauthClients } from '../connectors/index.js'
import type { FeaturesService } from '../features/index.js'
import type { BillingService } from '../billing/index.js'
import type { OrgsService } from '../orgs/index.js'
import type { SupportService } from '../support/index.js'
import type { CustomersService } from '../customers/index.js'
import type { LoyaltyService } from '../loyalty/index.js'
import type { ReviewIncentivesService } from '../review-incentives/index.js'
import type { AffiliatesService } from '../affiliates/index.js'
import type { PartnersService } from '../partners/index.js'
import type { EmailService, EmailSettingsService } from '../email/index.js'
import type { EmailBrandingService } from '../email-branding/index.js'
import type { EmailSuppressionsService } from '../email-suppressions/index.js'
import type { EmailSequencesService } from '../email-sequences/index.js'
import type { SendingDomainService } from '../sending-domain/index.js'
import type { AnalyticsService } from '../analytics/index.js'
import type { EvidenceService } from '../evidence/index.js'
import type { BackupsService } from '../backups/index.js'

/** The services the admin pages call: the API's own, under the same names, so both follow one set of rules. */
export interface AdminServices {
  people: PeopleRepository
  apiKeys: ApiKeysService
  account: AccountService
  invitations: InvitationsService
  outboundWebhooks: OutboundWebhooksService
  connections: ConnectionsService
  grants: GrantsRepository
  clients: OauthClients
  features: FeaturesService
  billing: BillingService
  orgs: OrgsService
  support: SupportService
  customers: CustomersService
  loyalty: LoyaltyService
  reviewIncentives: ReviewIncentivesService
  affiliates: AffiliatesService
  partners: PartnersService
  email: EmailService
  emailBranding: EmailBrandingService
  emailSuppressions: EmailSuppressionsService
  emailSequences: EmailSequencesService
  sendingDomain: SendingDomainService
  emailProviders: EmailProvidersService
  emailSettings: EmailSettingsService
  analytics: AnalyticsService
  evidence: EvidenceService
  backups: BackupsService
  webhookOperations: WebhookOperations
}
