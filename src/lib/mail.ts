import type { Knex } from 'knex'
import type { Transporter } from 'nodemailer'

export interface Mail {
  orgId: string
  storeEnvId: string
  to: string
  subject: string
  text: string
  /** The HTML alternative of `text` (modules/email/layout.ts). */
  html?: string
  /** Extra headers, e.g. List-Unsubscribe (RFC 8058). */
  headers?: Record<string, string>
  /** The display name before the From address (a store's branding). */
  fromName?: string | null
  /** The store's verified sending domain: its own From address, and nodemailer's DKIM signing options. */
  fromAddress?: string
  dkim?: { domainName: string, keySelector: string, privateKey: string }
}
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

/** The address of `Name <address>` (or the whole value): a store's own display name goes before it. */
function fromAddress (mailFrom: string): string {
  return /<([^<>]+)>\s*$/.exec(mailFrom)?.[1] ?? mailFrom.trim()
}

/** With SMTP_URL: SMTP through nodemailer. Without it (embedded default): rows in `mail_outbox`, nothing leaves the host. */
export function mailTransport (config: { smtpUrl?: string, mailFrom: string }, clock: () => number): MailTransport {
  const address = fromAddress(config.mailFrom)
  const fromOf = (mail: Mail) =>
    mail.fromName || mail.fromAddress ? { name: mail.fromName ?? '', address: mail.fromAddress ?? address } : config.mailFrom
  const { smtpUrl } = config
  if (smtpUrl) {
    // nodemailer is ~2 MB of heap, loaded with the first mail: most instances send none for a long while.
    let smtp: Promise<Transporter> | null = null
    const transporter = () => (smtp ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl)))
    const direct = async (message: Message) => { await (await transporter()).sendMail({ from: config.mailFrom, ...message }) }
    return {
      kind: 'smtp',
      async send (_trx, mail) {
        await (await transporter()).sendMail({
          from: fromOf(mail),
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: mail.headers,
          dkim: mail.dkim
        })
      },
      direct,
      close: () => { smtp?.then((transport) => transport.close(), () => {}) }
    }
  }
  return {
    kind: 'outbox',
    async send (trx, mail) {
      await trx('mail_outbox').insert({
        org_id: mail.orgId,
        store_env_id: mail.storeEnvId,
        to: mail.to,
        from: mail.fromName || mail.fromAddress
          ? `${JSON.stringify(mail.fromName ?? '')} <${mail.fromAddress ?? address}>`
          : config.mailFrom,
        subject: mail.subject,
        text: mail.text,
        html: mail.html ?? null,
        headers: mail.headers ? JSON.stringify(mail.headers) : null,
        created_at: clock()
      })
    },
    direct: null,
    close: () => {}
  }
}
