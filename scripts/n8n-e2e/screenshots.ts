/**
 * The screenshots of docs/n8n.md, taken from the run's real n8n (`N8N_E2E_SCREENSHOTS=true npm run test:n8n`):
 * the instance's owner is set up over n8n's REST API, and Chromium opens each node of the imported workflows.
 */
import { chromium } from 'playwright-core'

const OWNER = { email: 'owner@n8n-e2e.example', firstName: 'Maya', lastName: 'Roberts', password: 'N8n-e2e-Passw0rd' }

async function signIn (url: string): Promise<string> {
  // /healthz answers before n8n has mounted its REST routes.
  for (let i = 0; i < 120 && !(await fetch(`${url}/rest/settings`).then((res) => res.ok, () => false)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  const setup = await fetch(`${url}/rest/owner/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(OWNER)
  })
  if (!setup.ok && setup.status !== 400) throw new Error(`owner setup: ${setup.status} ${await setup.text()}`)
  const login = await fetch(`${url}/rest/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password })
  })
  if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`)
  const cookie = login.headers.getSetCookie().find((line) => line.startsWith('n8n-auth='))
  if (!cookie) throw new Error('no n8n-auth cookie')
  return cookie.slice('n8n-auth='.length).split(';')[0]
}

/** Each shot: a workflow's node (by its name) opened in n8n's node view, saved to docs/screenshots/<file>. */
export async function screenshots (url: string, shots: Array<{ workflow: string, node: string, file: string }>): Promise<void> {
  const token = await signIn(url)
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
  })
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 860 } })
    await context.addCookies([{ name: 'n8n-auth', value: token, url }])
    const page = await context.newPage()
    for (const shot of shots) {
      await page.goto(`${url}/workflow/${shot.workflow}`, { waitUntil: 'networkidle' })
      const node = page.locator('[data-test-id="canvas-node"]').filter({ hasText: shot.node })
      await node.first().waitFor({ timeout: 60_000 })
      await node.first().dblclick()
      await page.waitForSelector('[data-test-id="ndv"]', { timeout: 30_000 })
      await page.waitForTimeout(1500)
      await page.screenshot({ path: `docs/screenshots/${shot.file}` })
    }
  } finally {
    await browser.close()
  }
}
