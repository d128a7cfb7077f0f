import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { build, manualClock } from '../helper.js'
import { CHROMIUM } from './chromium.js'

export { CHROMIUM, hasChromium, SKIP_MESSAGE, withoutChromium } from './chromium.js'

const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '.artifacts', 'screenshots')

export async function launch (t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
  })
  t.teardown(() => browser.close())
  return browser
}

/** The app on a real port with a clock the test moves, and the base URL the browser uses. */
export async function serve (t: Test): Promise<{ app: FastifyInstance, base: string, clock: ReturnType<typeof manualClock> }> {
  const clock = manualClock()
  const app = await build(t, { clock })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { app, base: `http://127.0.0.1:${address.port}`, clock }
}

/** A fresh browser context (its own cookies) per test, closed with the test. */
export async function newPage (
  t: Test,
  browser: Browser,
  options: { phone?: boolean } = {}
): Promise<{ context: BrowserContext, page: Page }> {
  const context = await browser.newContext(
    options.phone
      ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true }
      : { viewport: { width: 1280, height: 860 } }
  )
  t.teardown(() => context.close())
  return { context, page: await context.newPage() }
}

export async function signIn (page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/admin/login`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${base}/admin/stores`)
}

/** Full-page screenshots for review, in test/.artifacts/screenshots/ (not committed). */
export async function screenshot (page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots')

/**
 * The screenshots docs/ shows: refreshed only when asked (`EH_DOCS_SCREENSHOTS=1 npm test -- <file>`), so that a
 * test run never changes committed files; otherwise they go with the others to test/.artifacts/screenshots/.
 */
export async function documented (page: Page, name: string): Promise<void> {
  if (process.env.EH_DOCS_SCREENSHOTS !== '1') return screenshot(page, name)
  mkdirSync(DOCS, { recursive: true })
  await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true })
}
