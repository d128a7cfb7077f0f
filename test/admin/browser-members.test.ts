import t from 'tap'
import { addMember, makeStore, makeTenant } from '../factories.js'
import { hasChromium, launch, newPage, screenshot, serve, signIn, withoutChromium } from './browser.js'

/** The admin app in real Chromium: members, the store switcher and the audit log, on a desktop and on a phone. */
if (!hasChromium) {
  withoutChromium(t)
} else {
  const browser = await launch(t)
  const { app, base } = await serve(t)

  t.test('an owner removes a member after confirming, and the member loses access at once', async (t) => {
    const tenant = await makeTenant(app)
    const editor = await addMember(app, tenant, 'editor')
    const { page: theirs } = await newPage(t, browser)
    await signIn(theirs, base, editor.email, editor.password)

    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    await page.goto(`${base}/admin/members`)
    await screenshot(page, '09-members')
    await page.locator(`tr[data-member="${editor.email}"]`).getByRole('link', { name: 'Remove' }).click()
    t.match(await page.locator('main').textContent(), `Remove ${editor.email}`)
    await screenshot(page, '10-member-remove-confirm')
    await page.getByRole('button', { name: 'Remove member' }).click()
    await page.waitForURL(`${base}/admin/members`)
    t.equal(await page.locator(`tr[data-member="${editor.email}"]`).count(), 0, 'gone from the list')
    t.match(await page.locator('[role="status"]').textContent(), 'removed')
    t.equal((await app.db('memberships').where({ org_id: tenant.orgId, person_id: editor.id })).length, 0)

    await theirs.goto(`${base}/admin/members`)
    t.equal(new URL(theirs.url()).pathname, '/admin/login', 'the removed member is sent to sign in')
    t.match(await theirs.locator('[role="alert"]').textContent(), 'no longer a member')
  })

  t.test('a person switches the current store and sees each store\'s subscription state', async (t) => {
    const tenant = await makeTenant(app)
    const second = await makeStore(app, tenant, { plan: 'pro' })
    await app.db('store_envs').where({ id: second }).update({ subscription_status: 'past_due' })
    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    t.match(await page.locator('tr', { hasText: second }).locator('[data-label="Subscription"]').textContent(), 'Past due')
    const other = page.locator('tr', { has: page.getByRole('button', { name: 'Switch to this store' }) })
    const target = (await other.locator('[data-label="ID"]').textContent())!.trim()
    await other.getByRole('button', { name: 'Switch to this store' }).click()
    await page.waitForURL(`${base}/admin/stores`)
    t.equal((await page.locator('tr.current [data-label="ID"]').textContent())!.trim(), target)
    t.match(await page.locator('[role="status"]').textContent(), 'Now working in')
    const session = await app.db('person_sessions').where({ person_id: tenant.owner.id }).first()
    t.equal(session.store_env_id, target, 'the choice is kept in the session')
  })

  t.test('the audit log lists security events and filters them by action', async (t) => {
    const tenant = await makeTenant(app)
    const editor = await addMember(app, tenant, 'editor')
    const { page } = await newPage(t, browser)
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    await page.goto(`${base}/admin/members/${editor.id}/remove`)
    await page.getByRole('button', { name: 'Remove member' }).click()
    await page.goto(`${base}/admin/audit-log`)
    t.equal(await page.locator('td[data-label="Action"]', { hasText: 'API key created' }).count(), 1)
    t.equal(await page.locator('td[data-label="Action"]', { hasText: 'Member removed' }).count(), 1)
    t.match(await page.locator('td[data-label="Actor"]').first().textContent(), tenant.owner.email, 'the actor is named by email')
    await screenshot(page, '11-audit-log-all')
    await page.getByLabel('Action').selectOption('member.removed')
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/action=member\.removed/)
    t.equal(await page.locator('td[data-label="Action"]', { hasText: 'API key created' }).count(), 0)
    t.match(await page.locator('td[data-label="Subject"]').first().textContent(), `person:${editor.id}`)
    await screenshot(page, '11-audit-log')
  })

  t.test('the pages are readable on a phone', async (t) => {
    const tenant = await makeTenant(app)
    const { page } = await newPage(t, browser, { phone: true })
    await signIn(page, base, tenant.owner.email, tenant.owner.password)
    for (
      const [path, name] of [['/admin/stores', '12-phone-stores'], ['/admin/keys', '13-phone-keys'], [
        '/admin/keys/new',
        '14-phone-key-new'
      ], ['/admin/members', '15-phone-members']]
    ) {
      await page.goto(`${base}${path}`)
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      t.ok(overflow <= 1, `${path} needs no sideways scrolling`)
      await screenshot(page, name)
    }
  })
}
