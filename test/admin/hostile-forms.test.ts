import t from 'tap'
import { build, call } from '../helper.js'
import { signedInOwner, type Agent } from './agent.js'

/**
 * Every form the admin application shows its owner, found by following the pages' links (so pages added later are
 * covered without being listed), is sent with each of its fields in turn, then all of them, set to hostile values:
 * the answer may refuse them, never fail with a 5xx.
 *
 * bundle-weight: 40 (scripts/test.ts: its ~800 posts take as long as about 40 ordinary tests)
 */

const HOSTILE = ['x'.repeat(100_000), '\u{1F600}'.repeat(500), '\u0000\u0001\uFFFF', '1e400', '9999-99-99']

interface Form { action: string, page: string, fields: string[], base: Record<string, string> }

const attribute = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1]
const unescape = (text: string) => text.replace(/&amp;/g, '&')

/** A value each kind of field accepts, so the other fields of a form get past validation while one is hostile. */
function validValue (tag: string): string {
  const type = attribute(tag, 'type') ?? 'text'
  const value = attribute(tag, 'value')
  if (value) return unescape(value)
  return ({
    email: 'zed@example.test',
    number: '1',
    url: 'https://shop.example/page',
    checkbox: 'on',
    radio: 'on',
    date: '2026-01-01'
  } as Record<string, string>)[type] ?? 'Valid'
}

function formsOf (page: string, html: string): Form[] {
  const forms: Form[] = []
  for (const [tag, inner] of [...html.matchAll(/<form([^>]*)>([\s\S]*?)<\/form>/gi)].map((m) => [m[1], m[2]])) {
    if (attribute(tag, 'method')?.toLowerCase() !== 'post') continue
    const base: Record<string, string> = {}
    for (const [, input] of inner.matchAll(/<input([^>]*)>/g)) {
      const name = attribute(input, 'name')
      const type = attribute(input, 'type')
      if (!name || name === '_csrf') continue
      if ((type === 'checkbox' || type === 'radio') && base[name] !== undefined && !/checked/.test(input)) continue
      base[name] = validValue(input)
    }
    for (const [, name, text] of inner.matchAll(/<textarea[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g)) {
      base[name] = unescape(text) || 'Valid text'
    }
    for (const [, name, options] of inner.matchAll(/<select[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
      base[name] = attribute(options, 'value') ?? ''
    }
    forms.push({ action: unescape(attribute(tag, 'action') ?? page), page, fields: Object.keys(base), base })
  }
  return forms
}

/** The admin pages reachable from /admin by links and redirects, with their post forms (one per action). */
async function crawl (agent: Agent) {
  const seen = new Set<string>()
  const queue = ['/admin']
  const forms = new Map<string, Form>()
  const failures: string[] = []
  while (queue.length) {
    const url = queue.shift()!
    if (seen.has(url)) continue
    seen.add(url)
    const res = await agent.get(url)
    if (res.statusCode >= 500) failures.push(`GET ${url}: ${res.statusCode}`)
    if (res.headers.location) queue.push(String(res.headers.location))
    for (const [, link] of res.body.matchAll(/href="(\/admin[^"#]*)"/g)) {
      if (!/sign-?out|logout|\/assets\//.test(link)) queue.push(unescape(link))
    }
    for (const form of formsOf(url, res.body)) if (!forms.has(form.action)) forms.set(form.action, form)
  }
  return { pages: seen.size, forms: [...forms.values()], failures }
}

t.test('no admin form answers 5xx to hostile values in any of its fields', async (t) => {
  const app = await build(t)
  const { tenant, agent } = await signedInOwner(app)
  // Something of each kind, so the pages that list them offer their forms too.
  const api = (method: 'POST' | 'PUT', url: string, payload: object) =>
    call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })
  await api('PUT', '/v1/products', { products: [{ platformProductId: 'p1', title: 'Shirt' }] })
  await api('POST', '/v1/imports', {
    type: 'reviews',
    items: [{
      productId: 'p1',
      rating: 5,
      body: 'Fine',
      authorName: 'Ann',
      authorEmail: 'ann@example.test',
      writtenAt: '2026-01-01T00:00:00Z',
      status: 'pending'
    }]
  })
  await api('POST', '/v1/galleries', { name: 'Worn by you', status: 'published' })
  await api('POST', '/v1/faqs', { question: 'Does it shrink?', answer: 'No.' })
  await api('POST', '/v1/categories', { name: 'Shirts', slug: 'shirts' })
  await api('POST', '/v1/web-pages', { url: 'https://shop.example/p', name: 'Product page' })
  await api('POST', '/v1/affiliates', { name: 'Ann', code: 'ANN10', commissionRate: '0.1' })
  await api('POST', '/v1/review-incentives', { type: 'points', points: 10 })

  const { pages, forms, failures } = await crawl(agent)
  let sent = 0
  // Signing out, leaving or giving the organization away would end the walk; their own tests cover them.
  for (const form of forms.filter((f) => !/sign-?out|logout|transfer|leave/.test(f.action))) {
    // One visit of the form's page gives a CSRF token that serves every post of the session.
    await agent.get(form.page)
    for (const field of [...form.fields, null]) {
      for (const value of HOSTILE) {
        const body = { ...form.base }
        for (const name of field === null ? form.fields : [field]) body[name] = value
        const res = await agent.post(form.action, body)
        sent++
        if (res.statusCode >= 500) {
          failures.push(`POST ${form.action} ${field ?? 'every field'}=${JSON.stringify(value.slice(0, 12))}: ${res.statusCode}`)
        }
      }
    }
  }
  t.same(failures, [])
  t.ok(pages >= 40 && forms.length >= 30, `${pages} pages, ${forms.length} forms, ${sent} hostile posts`)
})
