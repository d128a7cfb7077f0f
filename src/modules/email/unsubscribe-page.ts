import { escapeHtml } from './templates.js'

/**
 * The public unsubscribe pages (no admin layout: the reader is a store's customer). The form posts to the same URL
 * as the one-click request, without script, so the page works in any browser and mail client.
 */
export function unsubscribePage (target: { email: string, storeName: string, suppressed: boolean }, action: string, done: boolean): string {
  const store = escapeHtml(target.storeName)
  const body = done || target.suppressed
    ? `<h1>You are unsubscribed</h1><p>${escapeHtml(target.email)} will get no more emails from ${store}.</p>`
    : `<h1>Unsubscribe?</h1><p>Stop emails from ${store} to ${escapeHtml(target.email)}.</p>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>Unsubscribe from ${store}</title></head>
<body style="font-family:Helvetica,Arial,sans-serif;max-width:480px;margin:48px auto;padding:0 16px;line-height:1.5">
${body}
</body></html>
`
}
