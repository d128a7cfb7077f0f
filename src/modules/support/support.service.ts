import type { Knex } from 'knex'
import { type Clock } from '../../lib/clock.js'
import type { MailTransport } from '../../lib/mail.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import type { RecentFailures } from '../../lib/recent-failures.js'
import { actorOf, type Credential, type Log, type StoreEnv } from '../../types.js'
import type { SupportRepository, SupportRequest } from './support.repository.js'
import type { EventLog } from '../events/index.js'

interface Deps {
  db: Knex
  repo: SupportRepository
  events: EventLog
  failures: RecentFailures
  mailer: MailTransport
  supportEmail: string | undefined
  clock: Clock
  log: Log
}

function mailText (store: StoreEnv, request: SupportRequest) {
  return [
    `Support request ${request.id}`,
    `Store: ${store.name} (${store.id}), organization ${store.orgId}, plan ${store.plan}, ${store.subscriptionStatus}`,
    `Credential: ${request.credential}`,
    `Recent failed requests: ${request.failedRequestIds.length ? request.failedRequestIds.join(', ') : 'none'}`,
    '',
    request.body
  ].join('\n')
}

/**
 * Support requests (docs/contract/resources.md#support): stored with their context (store, credential, the
 * credential's recent failed request ids) and mailed to SUPPORT_EMAIL: by SMTP at once when configured (the
 * status says whether it went), else through the local mail outbox with the request.
 */
export function supportService ({ db, repo, events, failures, mailer, supportEmail, clock, log }: Deps) {
  return {
    async create (credential: Credential, store: StoreEnv, input: { subject: string, body: string }) {
      const failedRequestIds = await failures.list(actorOf(credential))
      const outbox = mailer.kind === 'outbox'
      const where = { orgId: store.orgId, storeEnvId: store.id }
      const created = await db.transaction(async (trx) => {
        const request = await repo.create({
          orgId: store.orgId,
          storeEnvId: store.id,
          credential: actorOf(credential),
          subject: input.subject,
          body: input.body,
          failedRequestIds,
          mailStatus: supportEmail ? 'queued' : 'not_configured',
          now: clock()
        }, trx)
        if (supportEmail && outbox) {
          await mailer.send(trx, {
            orgId: store.orgId,
            storeEnvId: store.id,
            to: supportEmail,
            subject: `[support] ${input.subject}`,
            text: mailText(store, request)
          })
        }
        await events.append(trx, { ...where, type: 'support_request.created', data: request })
        return request
      })
      if (!supportEmail || outbox || !mailer.direct) return created
      // SMTP after the commit: the request is kept even when the mail server refuses, and says so.
      try {
        await mailer.direct({ to: supportEmail, subject: `[support] ${input.subject}`, text: mailText(store, created) })
        created.mailStatus = 'sent'
      } catch (err) {
        log.warn({ err: { message: (err as Error).message }, supportRequest: created.id }, 'support mail failed')
        created.mailStatus = 'failed'
      }
      await db.transaction(async (trx) => {
        await repo.setMailStatus(created.id, created.mailStatus, trx)
        await events.append(trx, { ...where, type: 'support_request.updated', data: created })
      })
      return created
    },

    async list (store: StoreEnv, query: PageQuery & { updatedSince?: string }) {
      const page = toPage(query)
      const since = query.updatedSince === undefined ? undefined : Date.parse(query.updatedSince)
      const { total, requests } = await repo.list(store.id, { since }, page)
      return envelope(requests, total, page)
    }
  }
}
export type SupportService = ReturnType<typeof supportService>
