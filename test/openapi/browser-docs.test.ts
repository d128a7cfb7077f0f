import t from 'tap'
import type { IncomingMessage } from 'node:http'
import type { Page } from 'playwright-core'
import { makeTenant } from '../factories.js'
import { hasChromium, launch, newPage, screenshot, serve, withoutChromium } from '../admin/browser.js'

/**
 * The browsable reference (/docs, Swagger UI) in real Chromium: the store header is entered once, under Authorize,
 * beside the credential, and every "Try it out" sends both (docs/reference.md).
 */
if (!hasChromium) {
  withoutChromium(t)
} else {
  const browser = await launch(t)
  const { app, base } = await serve(t)
  /** What the server received, read from its own HTTP server before fastify sees it. */
  const received: Array<{ method?: string, url?: string, headers: IncomingMessage['headers'] }> = []
  app.server.prependListener('request', (request: IncomingMessage) => {
    received.push({ method: request.method, url: request.url, headers: request.headers })
  })

  const authorizeDialog = async (page: Page) => {
    await page.goto(`${base}/docs`)
    await page.getByRole('button', { name: 'Authorize' }).first().click()
    const modal = page.locator('.modal-ux')
    await modal.waitFor()
    const scheme = (name: string) =>
      modal.locator('.auth-container').filter({ has: page.locator('h4 code', { hasText: new RegExp(`^${name}$`) }) })
    return { modal, scheme }
  }

  /** Opens an operation under its tag, tries it out and waits for the answer the page shows. */
  const tryOut = async (page: Page, tag: string, method: string, path: string) => {
    const section = page.locator('.opblock-tag-section').filter({ has: page.locator('.opblock-tag', { hasText: new RegExp(`^${tag}`) }) })
    if (!await section.locator('.opblock').first().isVisible()) await section.locator('.opblock-tag').click()
    const operation = section.locator('.opblock')
      .filter({ has: page.locator('.opblock-summary-method', { hasText: new RegExp(`^${method}$`) }) })
      .filter({ has: page.locator('.opblock-summary-path', { hasText: new RegExp(`^${path.replaceAll('/', '\\/')}$`) }) })
    await operation.locator('.opblock-summary').click()
    await operation.getByRole('button', { name: 'Try it out' }).click()
    await operation.getByRole('button', { name: 'Execute' }).click()
    const status = operation.locator('.live-responses-table .response .response-col_status')
    await status.waitFor()
    return (await status.innerText()).trim()
  }

  t.test('the Authorize dialog of /docs has one field for the store header, x-store-env-id, beside the credentials', async (t) => {
    const { page } = await newPage(t, browser)
    const { scheme } = await authorizeDialog(page)
    const store = scheme('storeEnv')
    t.match(await store.innerText(), /Name:\s*x-store-env-id\s+In:\s*header/)
    t.equal(await store.locator('input').count(), 1)
    t.equal(await scheme('bearer').locator('input').count(), 1, 'the credential has its own field')
    await screenshot(page, 'docs-authorize')
  })

  t.test('authorized once, "Try it out" sends the credential and the store header on every operation', async (t) => {
    const tenant = await makeTenant(app)
    const { page } = await newPage(t, browser)
    const { modal, scheme } = await authorizeDialog(page)
    await scheme('bearer').locator('input').fill(tenant.key)
    await scheme('bearer').getByRole('button', { name: 'Apply credentials' }).click()
    await scheme('storeEnv').locator('input').fill(tenant.storeId)
    await scheme('storeEnv').getByRole('button', { name: 'Apply credentials' }).click()
    await modal.getByRole('button', { name: 'Close' }).first().click()
    const sent = (method: string, path: string) => received.filter((r) => r.method === method && r.url?.split('?')[0] === path)

    t.equal(await tryOut(page, 'reviews', 'GET', '/v1/reviews'), '200')
    t.match(sent('GET', '/v1/reviews'), [{ headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId } }])
    t.equal(await tryOut(page, 'products', 'GET', '/v1/products'), '200', 'a second operation needs nothing entered again')
    t.match(sent('GET', '/v1/products'), [{ headers: { authorization: `Bearer ${tenant.key}`, 'x-store-env-id': tenant.storeId } }])
    await screenshot(page, 'docs-try-it-out')
  })
}
