/**
 * The package's modules as the tests use them: loaded with `require`, as n8n loads the package (CommonJS). An ESM
 * `import` of a CommonJS TypeScript file would go through tsx's export pre-parse, which tap's own module hooks break
 * when a file runs on its own (`npm test -- connectors/n8n/test/x.test.ts`). The suite's compiled copy loads `.js`,
 * tsx the `.ts` sources (never extensionless: `X.node` would find the codex file `X.node.json` first). n8n-workflow
 * comes the same way, so that its NodeApiError is the class the nodes throw (its ESM build has another).
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const ext = import.meta.url.endsWith('.js') ? '.js' : '.ts'

export const workflow = require('n8n-workflow') as typeof import('n8n-workflow')

export const { EvidenceHub } = require(
  `../nodes/EvidenceHub/EvidenceHub.node${ext}`
) as typeof import('../nodes/EvidenceHub/EvidenceHub.node.js')
export const { EvidenceHubTrigger } = require(
  `../nodes/EvidenceHubTrigger/EvidenceHubTrigger.node${ext}`
) as typeof import('../nodes/EvidenceHubTrigger/EvidenceHubTrigger.node.js')
export const { EvidenceHubPollTrigger } = require(
  `../nodes/EvidenceHubPollTrigger/EvidenceHubPollTrigger.node${ext}`
) as typeof import('../nodes/EvidenceHubPollTrigger/EvidenceHubPollTrigger.node.js')
export const { catalogue } = require(`../nodes/shared/catalogue${ext}`) as typeof import('../nodes/shared/catalogue.js')
export const { verifyDelivery, TOLERANCE_SECONDS } = require(
  `../nodes/shared/signature${ext}`
) as typeof import('../nodes/shared/signature.js')
export const { apiError, retryAfterMs } = require(`../nodes/shared/transport${ext}`) as typeof import('../nodes/shared/transport.js')
export const { newItems, nextSeen } = require(
  `../nodes/EvidenceHubPollTrigger/cursor${ext}`
) as typeof import('../nodes/EvidenceHubPollTrigger/cursor.js')
