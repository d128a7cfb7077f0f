import t, { type Test } from 'tap'
import { call } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { hasChromium, launch, newPage, screenshot, serve, signIn, withoutChromium } from './browser.js'

/**
 * The admin app in real Chromium: signing in and the whole life of an API key
 * (docs/contract/tenancy-and-roles.md#api-keys).
 */
if (!hasChromium) {
  withoutChromium(t)
} else {
  const browser = await launch(t)
  const { app, base, clock } = await serve(t)

  /** A fresh tenant's owner, signed in, on the create-key form. */
  const keyForm = async (t: Test) => {
    const tenant = await makeTenant(app)
    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    await page.goto(`${base}/admin/keys/new`)
    return { tenant, page }
  }

  t.test('a person signs in with email and password and lands on the store switcher', async (t) => {
    const tenant = await makeTenant(app)
    const { page } = await newPage(t, browser)
    await page.goto(`${base}/admin/keys`)
    t.equal(new URL(page.url()).pathname, '/admin/login', 'an anonymous visit is sent to sign in')
    await screenshot(page, '01-login')
    await page.getByLabel('Email').fill(tenant.owner.email)
    await page.getByLabel('Password').fill('wrong password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    t.match(await page.locator('[role="alert"]').textContent(), 'not right')
    await page.getByLabel('Password').fill(tenant.owner.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${base}/admin/keys`)
    t.pass('after signing in, the page first asked for is shown')
    await page.goto(`${base}/admin/stores`)
    t.equal(await page.locator('tr.current td[data-label="Store"]').textContent(), 'Main store')
    t.match(await page.locator('tr.current [data-label="Subscription"]').textContent(), 'Active')
    await screenshot(page, '02-stores')
  })

  t.test('a read-only key shows its secret once, and a reload finds it gone', async (t) => {
    const { tenant, page } = await keyForm(t)
    await page.getByLabel('Name').fill('Dashboard reader')
    await page.getByLabel('Role').selectOption('viewer')
    await page.getByLabel('Read-only').check()
    t.notOk(await page.locator('#key-resources').isVisible(), 'read-only asks for no resources')
    await screenshot(page, '04-key-new')
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.waitForURL(/\/admin\/keys\/key_\w+\/created$/)
    const secret = (await page.locator('#key-secret').textContent())!
    t.match(secret, /^svc_[0-9A-Za-z]{40}$/)
    t.match(await page.locator('.flash.warning').textContent(), 'shown only once')
    t.ok(await page.getByRole('button', { name: 'Copy' }).isVisible(), 'a copy button sits next to it')
    await screenshot(page, '05-key-created')
    const stores = await call(app, { method: 'GET', url: '/v1/account/stores', key: secret })
    t.equal(stores.statusCode, 200, 'the secret works')
    const row = await app.db('api_keys').where({ org_id: tenant.orgId, name: 'Dashboard reader' }).first()
    t.same(JSON.parse(row.scopes), ['read'])
    t.equal(row.role, 'viewer')

    await page.reload()
    t.equal(await page.locator('#key-secret').count(), 0)
    t.notMatch(await page.content(), secret)
    t.match(await page.locator('#secret-gone').textContent(), 'shown once')
    await page.goto(`${base}/admin/keys`)
    t.notMatch(await page.content(), secret, 'the list never shows it')
    t.match(await page.locator('tr', { hasText: 'Dashboard reader' }).textContent(), row.prefix)
  })

  t.test('a per-resource read-and-write key works on its resources and is refused elsewhere', async (t) => {
    const { tenant, page } = await keyForm(t)
    await page.getByLabel('Name').fill('Key rotation bot')
    await page.getByLabel('Role').selectOption('admin')
    await page.getByLabel('Per-resource read and write').check()
    await page.locator('select[name="access_api-keys"]').selectOption('write')
    await page.locator('select[name="access_account"]').selectOption('read')
    await screenshot(page, '06-key-new-per-resource')
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = (await page.locator('#key-secret').textContent())!
    const created = await call(app, {
      method: 'POST',
      url: '/v1/api-keys',
      key: secret,
      store: tenant.storeId,
      payload: { name: 'made by the bot', role: 'viewer', scopes: ['api-keys:read'] }
    })
    t.equal(created.statusCode, 201, 'it may write api-keys')
    const members = await call(app, { method: 'GET', url: '/v1/account/members', key: secret, store: tenant.storeId })
    t.equal(members.statusCode, 200, 'it may read account')
    const removal = await call(app, { method: 'DELETE', url: `/v1/account/members/${tenant.owner.id}`, key: secret, store: tenant.storeId })
    t.equal(removal.statusCode, 403)
    t.equal(removal.json().code, 'insufficient_scope', 'it may not write account')
    await page.goto(`${base}/admin/keys`)
    t.match(await page.locator('tr', { hasText: 'Key rotation bot' }).textContent(), 'account:read, api-keys:write')
  })

  t.test('the Viewer role is offered no write option', async (t) => {
    const { tenant, page } = await keyForm(t)
    await page.getByLabel('Role').selectOption('editor')
    t.ok(await page.getByLabel('Per-resource read and write').isVisible(), 'an editor key may be offered writes')
    await page.getByLabel('Role').selectOption('viewer')
    t.notOk(await page.getByLabel('Per-resource read and write').isVisible(), 'a viewer key is not')
    await page.locator('input[name="mode"][value="resource-read"]').check()
    const writeChoices = page.locator('#key-resources option[value="write"]')
    t.ok(await writeChoices.count() > 0)
    t.same(
      await writeChoices.evaluateAll((options) => options.filter((o) => !(o as HTMLOptionElement).disabled).length),
      0,
      'no resource offers read and write'
    )
    await screenshot(page, '07-key-new-viewer')

    // Bypass the page's script: re-enable the hidden choices and submit a viewer key with a write scope.
    await page.evaluate(() => {
      const form = document.getElementById('key-form') as HTMLFormElement
      ;(form.elements.namedItem('name') as HTMLInputElement).value = 'Forged writer'
      const radio = form.querySelector('input[value="resource-write"]') as HTMLInputElement
      radio.disabled = false
      radio.checked = true
      const select = form.querySelector('select[name="access_reviews"]') as HTMLSelectElement
      ;(select.querySelector('option[value="write"]') as HTMLOptionElement).disabled = false
      select.value = 'write'
      form.submit()
    })
    await page.waitForURL(`${base}/admin/keys`)
    t.match(await page.locator('[role="alert"]').textContent(), 'A Viewer key cannot write', 'the server refuses it too')
    t.equal((await app.db('api_keys').where({ org_id: tenant.orgId, name: 'Forged writer' })).length, 0)
  })

  t.test('a key past its expiry is listed as Expired', async (t) => {
    const { page } = await keyForm(t)
    await page.getByLabel('Name').fill('Short-lived')
    await page.getByLabel('Read-only').check()
    const inOneHour = new Date(clock() + 3600_000).toISOString().slice(0, 16)
    await page.getByLabel('Expires (optional, UTC)').fill(inOneHour)
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = (await page.locator('#key-secret').textContent())!
    await page.goto(`${base}/admin/keys`)
    t.match(await page.locator('tr', { hasText: 'Short-lived' }).locator('[data-label="Status"]').textContent(), 'Active')
    clock.advance(2 * 3600_000)
    await page.reload()
    const row = page.locator('tr', { hasText: 'Short-lived' })
    t.match(await row.locator('[data-label="Status"]').textContent(), 'Expired')
    t.match(await row.locator('[data-label="Expires"]').textContent(), inOneHour.replace('T', ' '))
    await screenshot(page, '03-keys')
    t.equal((await call(app, { method: 'GET', url: '/v1/account/stores', key: secret })).statusCode, 401)
  })

  t.test('revoking a key after confirming makes the API refuse it', async (t) => {
    const tenant = await makeTenant(app)
    const { id, secret } = await makeKey(app, tenant, 'editor')
    t.equal((await call(app, { method: 'GET', url: '/v1/account/stores', key: secret })).statusCode, 200)
    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    await page.goto(`${base}/admin/keys`)
    await page.locator(`tr[data-key-id="${id}"]`).getByRole('link', { name: 'Revoke' }).click()
    t.match(await page.locator('main').textContent(), 'cannot be undone')
    await screenshot(page, '08-key-revoke-confirm')
    t.equal(
      (await call(app, { method: 'GET', url: '/v1/account/stores', key: secret })).statusCode,
      200,
      'nothing happens before confirming'
    )
    await page.getByRole('button', { name: 'Revoke key' }).click()
    await page.waitForURL(`${base}/admin/keys`)
    t.match(await page.locator(`tr[data-key-id="${id}"] [data-label="Status"]`).textContent(), 'Revoked')
    const refused = await call(app, { method: 'GET', url: '/v1/account/stores', key: secret })
    t.equal(refused.statusCode, 401)
    t.equal(refused.json().code, 'invalid_credentials')
  })
}
