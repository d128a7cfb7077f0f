import { escapeHtml } from './templates.js'

/** What a store's mails look like (email-branding); every field optional. */
export interface Branding { fromName: string | null, logoUrl: string | null, primaryColor: string | null, footerText: string | null }

export const NO_BRANDING: Branding = { fromName: null, logoUrl: null, primaryColor: null, footerText: null }

const DEFAULT_COLOR = '#2f5d50'

/**
 * A responsive HTML mail: one centred 600px column that shrinks on small screens, inline styles only (mail clients
 * drop <style> blocks and scripts), the store's logo and colour, its footer and the visible unsubscribe link.
 * Values reaching here are the store's own (escaped) or already-escaped template output.
 */
export function htmlMail (
  input: { title: string, content: string, storeName: string, branding: Branding, unsubscribeUrl: string | null }
): string {
  const { branding } = input
  const color = branding.primaryColor ?? DEFAULT_COLOR
  const logo = branding.logoUrl
    ? `<img src="${escapeHtml(branding.logoUrl)}" alt="${escapeHtml(input.storeName)}" style="display:block;max-width:200px;max-height:80px;border:0">`
    : `<span style="font-size:20px;font-weight:bold;color:#ffffff">${escapeHtml(input.storeName)}</span>`
  const footer = branding.footerText ? `<p style="margin:0 0 8px 0">${escapeHtml(branding.footerText).replace(/\r?\n/g, '<br>')}</p>` : ''
  const unsubscribe = input.unsubscribeUrl
    ? `<p style="margin:0"><a href="${escapeHtml(input.unsubscribeUrl)}" style="color:#666666">Unsubscribe</a> from these emails.</p>`
    : ''
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
</head>
<body style="margin:0;padding:0;background:#f4f4f4">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f4f4f4">
<tr><td align="center" style="padding:16px 8px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;background:#ffffff;border-radius:6px;overflow:hidden">
<tr><td style="background:${color};padding:16px 24px">${logo}</td></tr>
<tr><td style="padding:24px;font-family:Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5;color:#222222">
${input.content}
</td></tr>
<tr><td style="padding:16px 24px;border-top:3px solid ${color};font-family:Helvetica,Arial,sans-serif;font-size:12px;line-height:1.4;color:#666666">
${footer}${unsubscribe}
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`
}

/** The plain-text part: the body, the footer, and the unsubscribe link spelled out. */
export function textMail (input: { content: string, branding: Branding, unsubscribeUrl: string | null }): string {
  const parts = [input.content.trimEnd()]
  if (input.branding.footerText) parts.push(`--\n${input.branding.footerText}`)
  if (input.unsubscribeUrl) parts.push(`Unsubscribe: ${input.unsubscribeUrl}`)
  return `${parts.join('\n\n')}\n`
}
