import t from 'tap'
import { decodeJwt } from 'jose'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { connected } from '../oauth/oauth-helper.js'
import { appendEvent, receiver, testWorker } from '../webhooks/support.js'
import { documented, hasChromium, launch, newPage, screenshot, serve, signIn, withoutChromium } from './browser.js'

/**
 * The admin app in real Chromium: outbound webhooks, OAuth connections, categories, platform webhook secrets and
 * imports, built on their own modules' services.
 */
if (!hasChromium) {
  withoutChromium(t)
} else {
  const browser = await launch(t)

  t.test('registering a webhook shows its secret once, and the delivery log shows each attempt', async (t) => {
    const { app, base } = await serve(t)
    const tenant = await makeTenant(app)
    const hook = await receiver(t, (_req, n) => n === 1 ? 200 : 500)
    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    await page.goto(`${base}/admin/webhooks`)
    await page.getByLabel('Receiver URL').fill(hook.url)
    await page.getByLabel('Description (optional)').fill('Review sync')
    await page.getByRole('button', { name: 'Register webhook' }).click()
    await page.waitForURL(`${base}/admin/webhooks`)
    const secret = (await page.locator('#once-secret').textContent())!
    t.match(secret, /^whsec_/)
    t.match(await page.locator('.once [role="alert"]').textContent(), 'shown only once')
    await screenshot(page, '16-webhooks')
    await page.reload()
    t.equal(await page.locator('#once-secret').count(), 0, 'a reload finds the secret gone')
    t.notMatch(await page.content(), secret, 'the list never shows it')
    const row = page.locator('tr', { hasText: hook.url })
    t.match(await row.locator('[data-label="Status"]').textContent(), 'Active')

    await appendEvent(app, tenant, 'loyalty.birthday_reward', { n: 1 })
    await appendEvent(app, tenant, 'loyalty.referral_reward', { n: 2 })
    const worker = testWorker(t, app, [tenant.storeId], { timeoutMs: 10_000 })
    await worker.runOnce()
    t.equal(hook.received.length, 2)
    await row.getByRole('link', { name: 'Deliveries' }).click()
    const statuses = await page.locator('td[data-label="Status"]').allTextContents()
    t.same(statuses.map((s) => s.trim()).sort(), ['Retrying', 'Succeeded'])
    t.match(await page.locator('tr', { hasText: 'Retrying' }).locator('[data-label="Response"]').textContent(), '500')
    await screenshot(page, '17-webhook-deliveries')

    await page.goto(`${base}/admin/webhooks`)
    await page.locator('tr', { hasText: hook.url }).getByRole('link', { name: 'Retire' }).click()
    await page.getByRole('button', { name: 'Retire webhook' }).click()
    await page.waitForURL(`${base}/admin/webhooks`)
    t.equal(await page.locator('tr', { hasText: hook.url }).count(), 0, 'a retired webhook leaves the active list')
    const api = await call(app, { method: 'GET', url: '/v1/outbound-webhooks?status=retired', key: tenant.key, store: tenant.storeId })
    t.equal(api.json().data[0].status, 'retired')
  })

  t.test('revoking a connection in the admin app stops its tokens at once', async (t) => {
    const { app, base, tenant, tokens } = await connected(t, { scope: 'reviews:read offline_access' })
    t.equal(
      (await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token!, store: tenant.storeId })).statusCode,
      200
    )
    const grantId = decodeJwt(tokens.access_token!).grant_id as string
    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    await page.goto(`${base}/admin/connections`)
    const row = page.locator(`tr[data-connection-id="${grantId}"]`)
    t.match(await row.locator('[data-label="Application"]').textContent(), 'Automation Platform')
    t.match(await row.locator('[data-label="Scopes"]').textContent(), 'reviews:read')
    await screenshot(page, '18-connections')
    await row.getByRole('link', { name: 'Revoke' }).click()
    await page.getByRole('button', { name: 'Revoke connection' }).click()
    await page.waitForURL(`${base}/admin/connections`)
    t.equal(await page.locator(`tr[data-connection-id="${grantId}"]`).count(), 0)
    const refused = await call(app, { method: 'GET', url: '/v1/account/stores', key: tokens.access_token!, store: tenant.storeId })
    t.equal(refused.statusCode, 401)
    const log = await call(app, {
      method: 'GET',
      url: '/v1/account/audit-log?action=oauth.connection_revoked',
      key: tenant.key,
      store: tenant.storeId
    })
    t.match(log.json().data[0], { actor: `person:${tenant.owner.id}`, subject: `oauth:${grantId}` })
  })

  t.test('an owner registers an OAuth client and sees its secret once', async (t) => {
    const { app, base } = await serve(t)
    const tenant = await makeTenant(app)
    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    await page.goto(`${base}/admin/connections`)
    await page.getByLabel('Name', { exact: true }).fill('Our Zapier app')
    await page.getByLabel('Redirect URIs (one per line, matched exactly)').fill(
      'https://zapier.com/dashboard/auth/oauth/return/App1CLIAPI/'
    )
    await page.getByRole('button', { name: 'Register client' }).click()
    await page.waitForURL(`${base}/admin/connections`)
    const secret = (await page.locator('#once-secret').textContent())!
    t.match(secret, /^ocs_/)
    t.match(await page.locator('tr', { hasText: 'Our Zapier app' }).locator('[data-label="Type"]').textContent(), 'Confidential')
    await screenshot(page, '19-oauth-client-created')
    await page.reload()
    t.equal(await page.locator('#once-secret').count(), 0)
  })

  t.test('an owner adds a subcategory and sets a Shopify secret through the pages', async (t) => {
    const { app, base } = await serve(t)
    const tenant = await makeTenant(app)
    const api = (method: 'POST' | 'PUT', url: string, payload: object) =>
      call(app, { method, url, key: tenant.key, store: tenant.storeId, payload })
    const clothing = (await api('POST', '/v1/categories', { name: 'Clothing', slug: 'clothing' })).json().id
    await api('POST', '/v1/categories', { name: 'Accessories', slug: 'accessories' })
    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)

    await page.getByRole('link', { name: 'Categories' }).click()
    await page.waitForURL(`${base}/admin/categories`)
    await page.getByLabel('Name', { exact: true }).fill('Linen shirts')
    await page.locator('select[name="parentId"]').selectOption({ label: 'Clothing' })
    await page.getByRole('button', { name: 'Add category' }).click()
    t.match(await page.locator('[role="status"]').textContent(), 'The category “Linen shirts” is created.')
    const row = page.locator('tr', { hasText: 'Linen shirts' })
    t.match(await row.locator('[data-label="Slug"]').textContent(), 'linen-shirts')
    t.match(await row.locator('[data-label="Parent"]').textContent(), 'Clothing')
    await documented(page, 'categories-admin')
    const created =
      (await call(app, { method: 'GET', url: `/v1/categories?parentId=${clothing}`, key: tenant.key, store: tenant.storeId })).json().data
    t.match(created, [{ name: 'Linen shirts', slug: 'linen-shirts', parentId: clothing }])

    await page.getByRole('link', { name: 'Platform webhooks' }).click()
    await page.waitForURL(`${base}/admin/platform-webhooks`)
    const shopify = page.locator('section[data-platform="shopify"]')
    t.match(await shopify.locator('[data-secret-state]').textContent(), 'Not set')
    t.equal(await shopify.locator('#receiver-shopify').textContent(), `${app.config.publicUrl}/v1/webhooks/shopify/${tenant.storeId}`)
    await shopify.getByLabel('Shopify signing secret').fill('shpss_browser_secret_0123456789')
    await shopify.getByRole('button', { name: 'Set Shopify secret' }).click()
    await page.waitForURL(`${base}/admin/platform-webhooks`)
    t.match(await page.locator('[role="status"]').textContent(), 'The Shopify secret is set.')
    t.match(await page.locator('section[data-platform="shopify"] [data-secret-state]').textContent(), 'Set')
    t.notMatch(await page.content(), 'shpss_browser_secret', 'the secret is never shown again')
    await documented(page, 'platform-webhooks-admin')
    const listed = (await call(app, { method: 'GET', url: '/v1/webhooks/platforms', key: tenant.key, store: tenant.storeId })).json().data
    t.match(listed, [{ platform: 'shopify', secretSet: true }])
  })

  t.test('an import file chosen on the imports page is read into the form and imported', async (t) => {
    const { app, base } = await serve(t)
    const tenant = await makeTenant(app)
    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    await page.goto(`${base}/admin/imports`)
    const items = [
      { productId: 'linen-shirt', rating: 5, body: 'Soft and true to size.', authorName: 'Ann', writtenAt: '2025-05-02T09:00:00Z' },
      { productId: 'linen-shirt', rating: 4, body: 'Creases, but lovely.', authorName: 'Ben', writtenAt: '2025-05-09T18:30:00Z' },
      { productId: 'wool-scarf', rating: 7, body: 'Warm.', authorName: 'Cy', writtenAt: '2025-06-01T12:00:00Z' }
    ]
    const file = { name: 'reviews.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ type: 'reviews', items })) }
    await page.getByLabel('Choose a JSON file').setInputFiles(file)
    await page.waitForFunction(() => (document.getElementById('import-json') as HTMLTextAreaElement).value.includes('wool-scarf'))
    await page.getByRole('button', { name: 'Import reviews' }).click()
    await page.waitForURL(/\/admin\/imports\/imp_/)
    t.match(await page.locator('[role="status"]').textContent(), '2 of 3 reviews imported; 1 refused, listed below.')
    t.match(await page.locator('table.import-errors').textContent(), 'rating: must be <= 5')
    await documented(page, 'import-admin')
    await page.getByRole('link', { name: '← Imports' }).click()
    t.equal(await page.locator('table.imports tbody tr').count(), 1)
  })
}
