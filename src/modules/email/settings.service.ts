import type { Knex } from 'knex'
import { iso, type Clock } from '../../lib/clock.js'
import type { StoreEnv } from '../../types.js'
import type { EventLog } from '../events/index.js'
import type { EmailSettingsRow, RewardMailsRepository } from './reward-mails.repository.js'

interface Deps { db: Knex, repo: RewardMailsRepository, events: EventLog, clock: Clock }

export interface EmailSettingsInput { loyaltyRewardMails: boolean, reviewIncentiveMails: boolean }

/** Until a store says otherwise, it thanks its customers for their rewards. */
function present (row: EmailSettingsRow | undefined) {
  return {
    loyaltyRewardMails: row ? Boolean(row.loyalty_reward_mails) : true,
    reviewIncentiveMails: row ? Boolean(row.review_incentive_mails) : true,
    updatedAt: iso(row?.updated_at)
  }
}

/** Which of the service's own mails a store sends (GET/PUT /v1/email/settings). */
export function emailSettingsService ({ db, repo, events, clock }: Deps) {
  return {
    settingsOf: async (storeId: string, trx: Knex = db) => present(await repo.settings(storeId, trx)),

    /** Replaces the settings; appends `email_settings.updated`. */
    async put (store: StoreEnv, input: EmailSettingsInput) {
      const row: EmailSettingsRow = {
        org_id: store.orgId,
        store_env_id: store.id,
        loyalty_reward_mails: input.loyaltyRewardMails,
        review_incentive_mails: input.reviewIncentiveMails,
        updated_at: clock()
      }
      const out = present(row)
      await db.transaction(async (trx) => {
        await repo.putSettings(trx, row)
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'email_settings.updated', data: out })
      })
      return out
    }
  }
}
export type EmailSettingsService = ReturnType<typeof emailSettingsService>
