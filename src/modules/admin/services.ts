import type { AccountService } from '../account/account.service.js'
import type { PeopleRepository } from '../account/people.repository.js'
import type { ApiKeysService } from '../api-keys/api-keys.service.js'
import type { InvitationsService } from './invitations.service.js'
import type { OutboundWebhooksService } from '../outbound-webhooks/outbound-webhooks.service.js'
import type { ConnectionsService } from '../connectors/connections/connections.service.js'
import type { GrantsRepository } from '../connectors/connections/grants.repository.js'
import type { OauthClients } from '../connectors/connections/oauth-clients.repository.js'
import type { FeaturesService } from '../features/features.service.js'
import type { BillingService } from '../billing/billing.service.js'
import type { OrgsService } from '../orgs/orgs.service.js'
import type { SupportService } from '../support/support.service.js'
import type { CustomersService } from '../customers/customers.service.js'
import type { LoyaltyService } from '../loyalty/loyalty.service.js'
import type { ReviewIncentivesService } from '../review-incentives/review-incentives.service.js'
import type { AffiliatesService } from '../affiliates/affiliates.service.js'
import type { PartnersService } from '../partners/partners.service.js'
import type { EmailService } from '../email/email.service.js'
import type { EmailBrandingService } from '../email-branding/email-branding.service.js'
import type { EmailSuppressionsService } from '../email-suppressions/email-suppressions.service.js'
import type { EmailSequencesService } from '../email-sequences/email-sequences.service.js'
import type { EmailProvidersService } from '../email/providers.service.js'
import type { EmailSettingsService } from '../email/settings.service.js'
import type { SendingDomainService } from '../sending-domain/sending-domain.service.js'
import type { AnalyticsService } from '../analytics/analytics.service.js'
import type { EvidenceService } from '../evidence/evidence.service.js'
import type { BackupsService } from '../backups/backups.service.js'
import type { WebhookOperations } from '../outbound-webhooks/operations.service.js'

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
  features: FeaturesService
  billing: BillingService
  orgs: OrgsService
  support: SupportService
  customers: CustomersService
  loyalty: LoyaltyService
  incentives: ReviewIncentivesService
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
