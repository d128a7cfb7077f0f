import t from 'tap'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { documented, hasChromium, launch, newPage, serve, signIn, withoutChromium } from './browser.js'

/** The admin email pages in real Chromium: a sequence, branding, a suppression added by hand, the log, and the rendered mail. */
if (!hasChromium) {
  withoutChromium(t)
} else {
  const browser = await launch(t)
  const { app, base } = await serve(t)

  t.test('a store owner sets up a three-step sequence, brands its mails, previews one, suppresses an address and sees the message log', async (t) => {
    const tenant = await makeTenant(app)
    const api = (method: 'PUT' | 'POST', url: string, payload: object) =>
      call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })
    await api('PUT', '/v1/sending-domain', { domain: 'mail.shop.example' })
    await api('POST', '/v1/email/test', { templateKey: 'review_request', to: 'ann@example.test' })
    await api('POST', '/v1/email-suppressions', { email: 'bounced@example.test', reason: 'bounced' })
    await api('POST', '/v1/email/test', { templateKey: 'review_request', to: 'bounced@example.test' })

    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    await page.getByRole('link', { name: 'Email' }).click()
    await page.waitForURL(`${base}/admin/email`)
    await page.getByRole('link', { name: 'Sequences', exact: true }).click()
    await page.getByRole('link', { name: 'New sequence' }).click()
    await page.getByLabel('Name').fill('Three touches')
    await page.getByLabel('Active: review requests follow this sequence').check()
    for (const [step, hours] of [[1, '72'], [2, '96'], [3, '168']]) {
      await page.getByLabel(`Step ${step} delay in hours`).fill(hours as string)
    }
    await page.getByLabel('Step 2 stops when reviewed').check()
    await page.getByLabel('Step 3 stops when reviewed').check()
    await documented(page, 'email-sequence-admin')
    await page.getByRole('button', { name: 'Save sequence' }).click()
    t.match(await page.locator('[role="status"]').textContent(), 'The sequence “Three touches” is saved and active.')
    await page.getByRole('link', { name: 'Branding, domain and log' }).click()
    await page.waitForURL(`${base}/admin/email`)
    await page.getByLabel('Sender name').fill('Linen & Co')
    await page.getByLabel('Colour').fill('#8a3b12')
    await page.getByLabel('Footer').fill('Linen & Co · 1 Market Street, Springfield')
    await page.getByRole('button', { name: 'Save branding' }).click()
    t.match(await page.locator('[role="status"]').textContent(), 'The branding is saved.')
    await page.getByLabel('Stop mail to').fill('gone@example.test')
    await page.getByRole('button', { name: 'Suppress address' }).click()
    t.match(await page.locator('table.suppressions').textContent(), 'gone@example.test')
    t.match(await page.locator('table.messages').textContent(), 'Suppressed')
    t.match(await page.locator('table.records').textContent(), 'mail.shop.example')
    t.match(await page.locator('table.sequences').textContent(), 'Three touches')
    await documented(page, 'email-admin')

    await page.getByRole('link', { name: 'Review request' }).first().click()
    await page.waitForURL(/\/admin\/email\/preview\?templateKey=review_request$/)
    t.match(await page.title(), 'How was your order from Main store?')
    t.match(await page.locator('body').textContent(), 'Thank you for your order #1001.')
    t.equal(await page.locator('td[style*="background:#8a3b12"]').count(), 1, 'the store\'s colour is on the mail')
    await documented(page, 'email-preview')

    const phone = (await newPage(t, browser, { phone: true })).page
    await signIn(phone, base, tenant.owner.email, tenant.owner.password)
    await phone.goto(`${base}/admin/email/preview?templateKey=review_reminder`)
    const width = await phone.evaluate(() => document.documentElement.scrollWidth)
    t.ok(width <= 390, 'the mail fits a phone screen without sideways scrolling')
    await documented(phone, 'email-preview-phone')
  })
}
