import type { Knex } from 'knex'
import nodemailer from 'nodemailer'

export interface Mail { orgId: string, storeEnvId: string, to: string, subject: string, text: string }

/** Sends one mail; `trx` is the caller's transaction (the local outbox writes in it, SMTP ignores it). */
export interface MailTransport {
  kind: 'smtp' | 'outbox'
  send: (trx: Knex.Transaction, mail: Mail) => Promise<void>
  close: () => void
}

/** With SMTP_URL: SMTP through nodemailer. Without it (embedded default): rows in `mail_outbox`, nothing leaves the host. */
export function mailTransport (config: { smtpUrl?: string, mailFrom: string }, clock: () => number): MailTransport {
  if (config.smtpUrl) {
    const smtp = nodemailer.createTransport(config.smtpUrl)
    return {
      kind: 'smtp',
      async send (_trx, mail) {
        await smtp.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text })
      },
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
    close: () => {}
  }
}
