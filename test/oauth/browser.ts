/**
 * A browser for the OAuth screens, with nothing of the test runner: the suite's OAuth tests and the n8n end-to-end
 * run (scripts/n8n-e2e) sign in and consent with it.
 */
import { createServer } from 'node:net'

export async function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** A minimal browser: a cookie jar and manual redirects, so a test sees each page of the dance. */
export class Browser {
  cookies = new Map<string, string>()

  async request (url: string, init: { method?: string, form?: Record<string, string | string[]> } = {}) {
    const body = init.form
      ? new URLSearchParams(Object.entries(init.form).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => [k, x]))).toString()
      : undefined
    const res = await fetch(url, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {})
      },
      body
    })
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at)
      const value = pair.slice(at + 1)
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const location = res.headers.get('location')
    return { status: res.status, location: location ? new URL(location, url).href : null, text: await res.text() }
  }

  /** Follows redirects on `base`; stops at a page (200/4xx) or at a redirect that leaves it. */
  async follow (url: string, init: { form?: Record<string, string | string[]> } = {}) {
    let res = await this.request(url, init)
    let at = url
    while (res.location && new URL(res.location).origin === new URL(url).origin) {
      at = res.location
      res = await this.request(at)
    }
    return { ...res, url: at }
  }
}

export function csrfOf (html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html)
  if (!match) throw new Error('no CSRF field on the page')
  return match[1]
}
