import type { Knex } from 'knex'
import { iso, type Clock } from '../../lib/clock.js'
import { base62 } from '../../lib/ids.js'
import type { MailTransport, Message } from '../../lib/mail.js'
import { sha256 } from '../../lib/secrets.js'
import { clip } from '../../lib/text.js'
import { type EmailSuppressionsRepository, normalEmail } from '../email-suppressions/index.js'
import { htmlMail, textMail, type Branding } from './layout.js'
import type { EmailRepository, MessageStatus } from './email.repository.js'
import { DEFAULT_TEMPLATES, renderHtml, renderSubject, renderText, type TemplateKey, type Values } from './templates.js'

const REASON_MAX = 1000
export const UNSUBSCRIBE_TOKEN = /^[0-9A-Za-z]{40}$/

interface Deps {
  db: Knex
  repo: EmailRepository
  suppressions: EmailSuppressionsRepository
  branding: (storeId: string, trx?: Knex) => Promise<Branding>
  transport: MailTransport
  /** The store's verified sending domain, if any (modules/sending-domain): mail is then DKIM-signed from it. */
  signer: (
    storeId: string,
    trx?: Knex
  ) => Promise<{ fromAddress: string, dkim: { domainName: string, keySelector: string, privateKey: string } } | null>
  clock: Clock
  publicUrl: string
}

/** A mail of a store to one person, from one of its templates. `kind` names it in the log (the template key unless given). */
export interface StoreMail {
  orgId: string
  storeEnvId: string
  storeName: string
  to: string
  templateKey: TemplateKey
  values: Values
  kind?: string
}

export interface Outcome { status: MessageStatus, reason: string, messageId: string }

export interface Composed { subject: string, text: string, html: string, fromName: string | null }

/**
 * The one path every mail of the service takes (docs/contract/resources.md#email): the store's suppression list
 * first, then a row in the message log, then the transport. Each store mail carries its own unsubscribe token (only
 * its SHA-256 is kept) in `List-Unsubscribe` with `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058)
 * and as a visible link. Nothing here throws for a refused mail: the outcome says what happened.
 */
export function emailSender ({ db, repo, suppressions, branding, transport, signer, clock, publicUrl }: Deps) {
  const unsubscribeUrlOf = (token: string) => `${publicUrl}/v1/email/unsubscribe/${token}`

  /** The store's template (or the default) filled in and laid out with its branding. */
  async function compose (
    storeId: string,
    storeName: string,
    key: TemplateKey,
    values: Values,
    unsubscribeUrl: string | null,
    trx: Knex = db
  ): Promise<Composed> {
    const template = (await repo.findTemplate(storeId, key, trx)) ?? DEFAULT_TEMPLATES[key]
    const brand = await branding(storeId, trx)
    const filled = { storeName, ...values }
    const subject = renderSubject(template.subject, filled)
    return {
      subject,
      text: textMail({ content: renderText(template.body, filled), branding: brand, unsubscribeUrl }),
      html: htmlMail({ title: subject, content: renderHtml(template.body, filled), storeName, branding: brand, unsubscribeUrl }),
      fromName: brand.fromName ?? storeName
    }
  }

  async function send (trx: Knex.Transaction, mail: StoreMail): Promise<Outcome> {
    const now = clock()
    const to = normalEmail(mail.to)
    const kind = mail.kind ?? mail.templateKey
    const suppressed = await suppressions.find(mail.storeEnvId, to, trx)
    if (suppressed) {
      const reason = `Not sent: the address is on the suppression list (${suppressed.reason} since ${iso(suppressed.updated_at)})`
      const subject = renderSubject(
        (await repo.findTemplate(mail.storeEnvId, mail.templateKey, trx) ?? DEFAULT_TEMPLATES[mail.templateKey]).subject,
        { storeName: mail.storeName, ...mail.values }
      )
      const id = await repo.insertMessage(trx, {
        org_id: mail.orgId,
        store_env_id: mail.storeEnvId,
        to,
        subject,
        kind,
        status: 'suppressed',
        reason,
        unsubscribe_token_hash: null,
        created_at: now,
        updated_at: now
      })
      return { status: 'suppressed', reason, messageId: `msg_${id}` }
    }
    const token = base62(40)
    const unsubscribeUrl = unsubscribeUrlOf(token)
    const composed = await compose(mail.storeEnvId, mail.storeName, mail.templateKey, mail.values, unsubscribeUrl, trx)
    const id = await repo.insertMessage(trx, {
      org_id: mail.orgId,
      store_env_id: mail.storeEnvId,
      to,
      subject: composed.subject,
      kind,
      status: 'queued',
      reason: null,
      unsubscribe_token_hash: sha256(token),
      created_at: now,
      updated_at: now
    })
    const headers = { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
    let status: MessageStatus
    let reason: string
    try {
      const signing = await signer(mail.storeEnvId, trx)
      await transport.send(trx, {
        orgId: mail.orgId,
        storeEnvId: mail.storeEnvId,
        to,
        subject: composed.subject,
        text: composed.text,
        html: composed.html,
        headers,
        fromName: composed.fromName,
        ...signing
      })
      status = transport.kind === 'smtp' ? 'sent' : 'queued'
      reason = transport.kind === 'smtp' ? 'Handed to the SMTP server' : 'Kept in the local outbox: no SMTP server is configured (SMTP_URL)'
    } catch (err) {
      status = 'failed'
      reason = clip(`Mail transport refused the message: ${(err as Error).message}`, REASON_MAX)
    }
    await repo.settleMessage(trx, id, status, reason, clock())
    return { status, reason, messageId: `msg_${id}` }
  }

  /**
   * Organization mail a person is waiting for (invitations): SMTP only, logged without a store. It carries no
   * unsubscribe link: it is not bulk mail, and no store's list applies to it. A refusal is logged, then thrown.
   */
  function direct (kind: string): ((orgId: string, message: Message) => Promise<void>) | null {
    const smtp = transport.direct
    if (!smtp) return null
    return async (orgId, message) => {
      const now = clock()
      const id = await repo.insertMessage(db, {
        org_id: orgId,
        store_env_id: null,
        to: normalEmail(message.to),
        subject: clip(message.subject, 300),
        kind,
        status: 'queued',
        reason: null,
        unsubscribe_token_hash: null,
        created_at: now,
        updated_at: now
      })
      try {
        await smtp(message)
      } catch (err) {
        await repo.settleMessage(
          db,
          id,
          'failed',
          clip(`Mail transport refused the message: ${(err as Error).message}`, REASON_MAX),
          clock()
        )
        throw err
      }
      await repo.settleMessage(db, id, 'sent', 'Handed to the SMTP server', clock())
    }
  }

  return { compose, send, direct, unsubscribeUrlOf }
}
export type EmailSender = ReturnType<typeof emailSender>
