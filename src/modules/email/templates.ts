/**
 * The store-editable mail templates (docs/contract/resources.md#email). Merchants edit text, not code: a template is
 * plain text with `{{variable}}` placeholders from a fixed list per key, substituted in one pass (a value that
 * itself contains `{{…}}` is never expanded again), and every character of both the template and the values is
 * escaped when the HTML part is made. No expression, loop or helper exists to inject.
 */

import { clip } from '../../lib/text.js'

export const TEMPLATE_KEYS = ['review_request', 'review_reminder', 'loyalty_birthday', 'loyalty_referral', 'review_incentive'] as const
export type TemplateKey = typeof TEMPLATE_KEYS[number]

export const SUBJECT_MAX = 300
export const BODY_MAX = 10_000

/** A value with its own HTML form (a list of links); plain strings are escaped. */
export interface Rich { text: string, html: string }
export type Value = string | Rich
export type Values = Record<string, Value>

const COMMON = ['customerName', 'storeName'] as const

export const VARIABLES: Record<TemplateKey, readonly string[]> = {
  review_request: [...COMMON, 'orderId', 'productList'],
  review_reminder: [...COMMON, 'orderId', 'productList'],
  loyalty_birthday: [...COMMON, 'points', 'balance'],
  loyalty_referral: [...COMMON, 'points', 'balance'],
  review_incentive: [...COMMON, 'reward', 'couponCode', 'points', 'productName']
}

export const DEFAULT_TEMPLATES: Record<TemplateKey, { subject: string, body: string }> = {
  review_request: {
    subject: 'How was your order from {{storeName}}?',
    body:
      'Hi {{customerName}},\n\nThank you for your order {{orderId}}. We would love to hear what you think:\n\n{{productList}}\n\n{{storeName}}'
  },
  review_reminder: {
    subject: 'A quick reminder from {{storeName}}',
    body: 'Hi {{customerName}},\n\nYou have not reviewed your order {{orderId}} yet. It takes a minute:\n\n{{productList}}\n\n{{storeName}}'
  },
  loyalty_birthday: {
    subject: 'Happy birthday from {{storeName}}',
    body:
      'Hi {{customerName}},\n\nHappy birthday! We added {{points}} points to your account. Your balance is now {{balance}} points.\n\nEnjoy your day,\n{{storeName}}'
  },
  // One text for both sides of a referral (the friend who referred and the friend who was referred).
  loyalty_referral: {
    subject: 'Your referral reward from {{storeName}}',
    body:
      'Hi {{customerName}},\n\nA referral between you and a friend has paid off: {{points}} points are now in your account. Your balance is now {{balance}} points.\n\nThank you,\n{{storeName}}'
  },
  // The reward stands on a line of its own, so no punctuation is ever read as part of a coupon code.
  review_incentive: {
    subject: 'Thank you for your review',
    body:
      'Hi {{customerName}},\n\nThank you for reviewing {{productName}} at {{storeName}}. As a thank-you, here is your reward:\n\n{{reward}}\n\n{{storeName}}'
  }
}

/** Values for previews and test sends, so a merchant sees every placeholder filled. */
export function sampleValues (storeName: string): Values {
  const productList = productListValue([{ title: 'Linen shirt', url: 'https://shop.example/p/linen-shirt' }])
  return {
    customerName: 'Ann',
    storeName,
    orderId: '#1001',
    productList,
    points: '100',
    balance: '350',
    reward: couponValue('SAVE10'),
    couponCode: 'SAVE10',
    productName: 'Linen shirt'
  }
}

export function isTemplateKey (value: string): value is TemplateKey {
  return (TEMPLATE_KEYS as readonly string[]).includes(value)
}

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9]{0,40})\s*\}\}/g
const ANY_BRACES = /\{\{|\}\}/

/** The unknown placeholders of `text` (and stray braces), or [] when every `{{…}}` names a variable of `key`. */
export function unknownPlaceholders (key: TemplateKey, text: string): string[] {
  const known = new Set(VARIABLES[key])
  const unknown = [...text.matchAll(PLACEHOLDER)].map((m) => m[1]).filter((name) => !known.has(name))
  if (ANY_BRACES.test(text.replace(PLACEHOLDER, ''))) unknown.push('{{ without a variable name }}')
  return [...new Set(unknown)]
}

export function escapeHtml (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
}

/** One pass over the template: literal parts and values are each emitted once, never re-read as template. */
function substitute (template: string, values: Values, literal: (text: string) => string, value: (v: Value) => string): string {
  let out = ''
  let last = 0
  for (const m of template.matchAll(PLACEHOLDER)) {
    out += literal(template.slice(last, m.index))
    const found = values[m[1]]
    out += found === undefined ? '' : value(found)
    last = m.index + m[0].length
  }
  return out + literal(template.slice(last))
}

/** Header-safe: no line breaks in a subject (a header), whatever a value holds. */
export function renderSubject (subject: string, values: Values): string {
  const text = substitute(subject, values, (s) => s, (v) => typeof v === 'string' ? v : v.text)
  return clip(text.replace(/[\r\n]+/g, ' ').trim(), SUBJECT_MAX)
}

export function renderText (body: string, values: Values): string {
  return substitute(body, values, (s) => s, (v) => typeof v === 'string' ? v : v.text)
}

/** Paragraphs from blank lines, line breaks from single ones; everything escaped. */
export function renderHtml (body: string, values: Values): string {
  const html = substitute(body, values, escapeHtml, (v) => typeof v === 'string' ? escapeHtml(v) : v.html)
  return html.split(/\r?\n\s*\r?\n/).map((p) => `<p style="margin:0 0 16px 0">${p.replace(/\r?\n/g, '<br>')}</p>`).join('\n')
}

export function productListValue (products: Array<{ title: string, url: string | null }>): Rich {
  const text = products.map((p) => `- ${p.title}${p.url ? `: ${p.url}` : ''}`).join('\n')
  const items = products.map((p) => `<li>${p.url ? `<a href="${escapeHtml(p.url)}">${escapeHtml(p.title)}</a>` : escapeHtml(p.title)}</li>`)
  return { text, html: `<ul style="margin:0;padding-left:20px">${items.join('')}</ul>` }
}

/** A review incentive's coupon code, set apart in the HTML part. */
export function couponValue (code: string): Rich {
  return {
    text: `Coupon code: ${code}`,
    html: `Coupon code: <strong style="font-family:monospace;font-size:18px">${escapeHtml(code)}</strong>`
  }
}
