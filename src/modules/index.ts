/**
 * Every module, in the order the app mounts their routes (which is also the order of the OpenAPI document and of
 * the MCP tool list) and subscribes their reactions. A module declares itself in its index.ts (`manifest`,
 * src/lib/module.ts): its resources, services, events, reactions and routes. Adding one is its folder and one line
 * here.
 */
import type { ModuleManifest } from '../lib/module.js'
import { declareResources } from '../lib/permissions.js'
import { manifest as health } from './health/index.js'
import { manifest as audit } from './audit/index.js'
import { manifest as idempotency } from './idempotency/index.js'
import { manifest as account } from './account/index.js'
import { manifest as apiKeys } from './api-keys/index.js'
import { manifest as products } from './products/index.js'
import { manifest as orders } from './orders/index.js'
import { manifest as reviews } from './reviews/index.js'
import { manifest as imports } from './imports/index.js'
import { manifest as uploads } from './uploads/index.js'
import { manifest as events } from './events/index.js'
import { manifest as delivery } from './delivery/index.js'
import { manifest as oauth } from '../../oauth/index.js'
import { manifest as connectors } from './connectors/index.js'
import { manifest as features } from './features/index.js'
import { manifest as billing } from './billing/index.js'
import { manifest as orgs } from './orgs/index.js'
import { manifest as support } from './support/index.js'
import { manifest as admin } from './admin/index.js'
import { manifest as customers } from './customers/index.js'
import { manifest as loyalty } from './loyalty/index.js'
import { manifest as reviewIncentives } from './review-incentives/index.js'
import { manifest as affiliates } from './affiliates/index.js'
import { manifest as partners } from './partners/index.js'
import { manifest as email } from './email/index.js'
import { manifest as emailSuppressions } from './email-suppressions/index.js'
import { manifest as emailBranding } from './email-branding/index.js'
import { manifest as emailSequences } from './email-sequences/index.js'
import { manifest as sendingDomain } from './sending-domain/index.js'
import { manifest as analytics } from './analytics/index.js'
import { manifest as evidence } from './evidence/index.js'
import { manifest as backups } from './backups/index.js'
import { manifest as galleries } from './galleries/index.js'
import { manifest as faqs } from './faqs/index.js'
import { manifest as categories } from './categories/index.js'
import { manifest as webPages } from './web-pages/index.js'
import { manifest as placements } from './placements/index.js'
import { manifest as storefront } from './storefront/index.js'
import { manifest as platformSync } from './platform-sync/index.js'
import { manifest as changelog } from './changelog/index.js'

export const MODULES: readonly ModuleManifest[] = [
  health, audit, idempotency, account, apiKeys, products, orders, reviews, imports, uploads, events, delivery, oauth, connectors, features,
  billing, orgs, support, admin, customers, loyalty, reviewIncentives, affiliates, partners, email, emailSuppressions,
  emailBranding, emailSequences, sendingDomain, analytics, evidence, backups, galleries, faqs, categories, webPages,
  placements, storefront, platformSync, changelog
]

// The permission registry is the modules' resources.
declareResources(MODULES)
