import type { Knex } from 'knex'
import type { Clock } from '../../lib/clock.js'
import { clip } from '../../lib/text.js'
import type { StoreEnv } from '../../types.js'
import { normalEmail } from '../email-suppressions/index.js'
import type { ProductsRepository } from '../products/index.js'
import type { EmailSender } from './email.sender.js'
import type { RewardMailRow, RewardMailsRepository } from './reward-mails.repository.js'
import type { EmailSettingsService } from './settings.service.js'
import { couponValue, type TemplateKey, type Values } from './templates.js'

interface Deps {
  db: Knex
  repo: RewardMailsRepository
  settings: EmailSettingsService
  sender: EmailSender
  products: Pick<ProductsRepository, 'findByKeys'>
  clock: Clock
}

/**
 * What the loyalty and review-incentives hooks tell (their RewardGranted and IncentiveIssued): matched by shape, so
 * neither module imports the other and src/services.ts passes these hooks straight in.
 */
export interface LoyaltyReward {
  kind: 'birthday' | 'referral'
  entryId: number
  email: string | null
  name: string | null
  points: number
  balance: number
}
export interface IncentiveReward {
  issueId: string
  code: string | null
  points: number | null
  email: string | null
  name: string | null
  productId: string
}

const BATCH = 50
const REASON_MAX = 1000

/** Stored values are strings; a coupon's `reward` (with its HTML form) is made from `couponCode` when the mail is. */
type Stored = Record<string, string>

function valuesOf (stored: Stored): Values {
  const values: Values = { ...stored }
  if (stored.couponCode) values.reward = couponValue(stored.couponCode)
  return values
}

const greeting = (name: string | null) => name?.trim() || 'there'

/**
 * The mails that thank a customer for a reward (docs/contract/resources.md#email): loyalty birthday and referral
 * rewards (`loyalty_birthday`, `loyalty_referral`; one template serves both sides of a referral) and review
 * incentives (`review_incentive`, a coupon code or points). Queued in the transaction that grants the reward, once
 * per reward by the queue's unique (store, source) key, and sent by `runDue` through the one mail path (suppression
 * list, message log, unsubscribe headers, DKIM), so a rolled-back grant sends nothing and a slow SMTP server never
 * holds up an order import or a review's publication.
 */
export function rewardMails ({ db, repo, settings, sender, products, clock }: Deps) {
  async function enqueue (trx: Knex, store: StoreEnv, input: { sourceId: string, templateKey: TemplateKey, to: string, values: Stored }) {
    const now = clock()
    const row: RewardMailRow = {
      org_id: store.orgId,
      store_env_id: store.id,
      source_id: input.sourceId,
      template_key: input.templateKey,
      to: normalEmail(input.to),
      values: JSON.stringify(input.values),
      state: 'pending',
      message_id: null,
      reason: null,
      created_at: now,
      updated_at: now
    }
    await repo.enqueue(trx, row)
  }

  async function processOne (id: number): Promise<boolean> {
    return db.transaction(async (trx) => {
      const row = await repo.claim(id, trx)
      if (!row) return false
      const now = clock()
      const current = await settings.settingsOf(row.store_env_id, trx)
      const on = row.template_key === 'review_incentive' ? current.reviewIncentiveMails : current.loyaltyRewardMails
      if (!on) {
        await repo.settle(trx, id, {
          state: 'skipped',
          reason: 'Not sent: the store turned these mails off before they went out',
          updated_at: now
        })
        return true
      }
      const store = await trx('store_envs').where({ id: row.store_env_id }).first('name')
      const outcome = await sender.send(trx, {
        orgId: row.org_id,
        storeEnvId: row.store_env_id,
        storeName: store?.name ?? 'our store',
        to: row.to,
        templateKey: row.template_key,
        values: valuesOf(JSON.parse(row.values) as Stored)
      })
      await repo.settle(trx, id, {
        state: 'done',
        message_id: Number(outcome.messageId.slice(4)),
        reason: clip(outcome.reason, REASON_MAX),
        updated_at: clock()
      })
      return true
    })
  }

  return {
    /** Loyalty hook, in the granting transaction: a birthday or referral reward's mail, if the store sends them. */
    async onLoyaltyReward (trx: Knex, store: StoreEnv, reward: LoyaltyReward) {
      if (!reward.email || !(await settings.settingsOf(store.id, trx)).loyaltyRewardMails) return
      await enqueue(trx, store, {
        sourceId: `lle_${reward.entryId}`,
        templateKey: reward.kind === 'birthday' ? 'loyalty_birthday' : 'loyalty_referral',
        to: reward.email,
        values: { customerName: greeting(reward.name), points: String(reward.points), balance: String(reward.balance) }
      })
    },

    /** Review-incentives hook, in the publishing transaction: the issued reward's mail, if the store sends them. */
    async onIncentiveIssued (trx: Knex, store: StoreEnv, issued: IncentiveReward) {
      if (!issued.email || !(await settings.settingsOf(store.id, trx)).reviewIncentiveMails) return
      const product = (await products.findByKeys(store.id, [issued.productId], trx)).get(issued.productId)
      const common = { customerName: greeting(issued.name), productName: product?.title?.trim() || 'your purchase' }
      const values: Stored = issued.code != null
        ? { ...common, couponCode: issued.code, points: '' }
        : { ...common, reward: `${issued.points ?? 0} points, added to your account`, couponCode: '', points: String(issued.points ?? 0) }
      await enqueue(trx, store, { sourceId: issued.issueId, templateKey: 'review_incentive', to: issued.email, values })
    },

    /** Sends every queued reward mail (in batches), in every store or in `storeId` only; answers how many were settled. */
    async runDue (storeId?: string): Promise<number> {
      let done = 0
      for (;;) {
        const rows = await repo.pending(BATCH, storeId)
        let progressed = 0
        for (const row of rows) if (await processOne(Number(row.id))) progressed++
        done += progressed
        if (rows.length < BATCH || progressed === 0) return done
      }
    },

    eraseRecipient: (trx: Knex, storeId: string, email: string) => repo.eraseRecipient(trx, storeId, normalEmail(email), clock())
  }
}
export type RewardMails = ReturnType<typeof rewardMails>
