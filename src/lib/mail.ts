import type { Knex } from 'knex'
import nodemailer from 'nodemailer'

export interface Mail { orgId: string, storeEnvId: string, to: string, subject: string, text: string }
export interface Message { to: string, subject: string, text: string }

/**
 * The one mail wrapper of the process, built once by the composition root (src/services.ts) and closed with it.
 * `send` is for mail that may wait (review requests): with SMTP it goes out now, without it a row in `mail_outbox`
 * is written in the caller's transaction. `direct` is for mail a person is waiting for (invitations): SMTP only,
 * null on the embedded default where nothing can leave the host.
 */
export interface MailTransport {
  kind: 'smtp' | 'outbox'
  send: (trx: Knex.Transaction, mail: Mail) => Promise<void>
  direct: ((message: Message) => Promise<void>) | null
  close: () => void
}

/** With SMTP_URL: SMTP through nodemailer. Without it (embedded default): rows in `mail_outbox`, nothing leaves the host. */
export function mailTransport (config: { smtpUrl?: string, mailFrom: string }, clock: () => number): MailTransport {
  if (config.smtpUrl) {
    const smtp = nodemailer.createTransport(config.smtpUrl)
    const direct = async (message: Message) => { await smtp.sendMail({ from: config.mailFrom, ...message }) }
    return {
      kind: 'smtp',
      async send (_trx, mail) {
        await direct({ to: mail.to, subject: mail.subject, text: mail.text })
      },
      direct,
      close: () => smtp.close()
    }
  }
  return {
    kind: 'outbox',
    async send (trx, mail) {
      await trx('mail_outbox').insert({
        org_id: mail.orgId, store_env_id: mail.storeEnvId, to: mail.to, from: config.mailFrom, subject: mail.subject, text: mail.text, created_at: clock()
      })
    },
    direct: null,
    close: () => {}
  }
}
