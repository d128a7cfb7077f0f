import nodemailer from 'nodemailer'
import type { SendInvitation } from './invitations.service.js'

/** With SMTP_URL, invitations are emailed through nodemailer; without it (embedded default) there is no mailer. */
export function invitationMailer (smtpUrl: string | undefined, from: string): SendInvitation {
  if (!smtpUrl) return null
  const transport = nodemailer.createTransport(smtpUrl)
  return async (message) => { await transport.sendMail({ from, ...message }) }
}
