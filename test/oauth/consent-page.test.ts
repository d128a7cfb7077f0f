import t from 'tap'
import { makeStore, makeTenant } from '../factories.js'
import { csrfOf, makeClient, openConsent, REDIRECT_URI, serve } from './oauth-helper.js'

/** What a browser submits for the consent form as shown: the checked radio and boxes, the first role. */
function defaultChoice (html: string): Record<string, string | string[]> {
  const checked = (name: string) =>
    [...html.matchAll(new RegExp(`<input type="(?:radio|checkbox)" name="${name}" value="([^"]+)" checked`, 'g'))].map((m) => m[1])
  const role = /<select id="role" name="role"><option value="([^"]+)"/.exec(html)
  return { _csrf: csrfOf(html), org: checked('org')[0] ?? '', stores: checked('stores'), role: role?.[1] ?? '' }
}

t.test('a person with one store finds it already chosen and can allow at once', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  const { page, browser } = await openConsent({ base, client: await makeClient(app), person: tenant.owner })
  const choice = defaultChoice(page.text)
  t.same(choice.stores, [tenant.storeId])
  const done = await browser.follow(page.url.replace(/\/?$/, '/consent'), { form: choice })
  t.ok(done.location?.startsWith(REDIRECT_URI), `redirected to the client, got ${done.status}: ${done.text.slice(0, 200)}`)
})

t.test('a person with several stores chooses them: none is preselected', async (t) => {
  const { app, base } = await serve(t)
  const tenant = await makeTenant(app)
  await makeStore(app, tenant)
  const { page } = await openConsent({ base, client: await makeClient(app), person: tenant.owner })
  t.same(defaultChoice(page.text).stores, [])
})
