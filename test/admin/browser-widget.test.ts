import t from 'tap'
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import { call } from '../helper.js'
import { makeTenant } from '../factories.js'
import { documented, hasChromium, launch, newPage, serve, signIn, withoutChromium } from './browser.js'

const JPEG = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url))

/** The storefront widget on a shop's page in real Chromium (docs/contract/storefront.md#widget-reads, issue 15). */
if (!hasChromium) {
  withoutChromium(t)
} else {
  const browser = await launch(t)
  const { app, base, clock } = await serve(t)

  // The shop: one product page that embeds the widget, with styles of its own that must not reach it.
  let html = ''
  // Pages of their own for the tests of faulty placements; every other path is the product page.
  const pages = new Map<string, string>()
  const shop = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(pages.get(req.url ?? '') ?? html))
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve))
  t.teardown(() => shop.close())
  const port = (shop.address() as AddressInfo).port
  // Two origins for one server: the store allows `localhost`, not `127.0.0.1`.
  const allowed = `http://localhost:${port}`
  const foreign = `http://127.0.0.1:${port}`

  const tenant = await makeTenant(app, { origins: [allowed] })
  // A second between the merchant's calls keeps the key within its per-second budget.
  const api = (method: string, url: string, payload?: unknown) => {
    clock.advance(1000)
    return call(app, { method: method as 'GET', url: `/v1${url}`, key: tenant.key, store: tenant.storeId, payload: payload as object })
  }
  const store = (await app.services.stores.find(tenant.storeId))!
  await api('PUT', '/products', { products: [{ platformProductId: 'shirt' }] })
  for (const [rating, name, body] of [[4, 'Maya R.', 'Soft and true to size.'], [5, 'Ann K.', 'My favourite shirt.']] as const) {
    clock.advance(1000)
    const { id } = await app.services.reviews.submit(store, {
      productId: 'shirt',
      rating,
      body,
      authorName: name,
      authorEmail: `${name[0].toLowerCase()}@private.test`
    })
    await app.services.reviews.update(store, id, { status: 'published' })
  }
  const gallery = (await api('POST', '/galleries', { name: 'Worn by you', status: 'published' })).json()
  const photo = await app.services.galleryVisitors.submitPhoto(store, gallery.id, JPEG, { caption: 'Beach day', authorName: 'Lea' })
  await api('PATCH', `/galleries/${gallery.id}/photos/${photo.id}`, { status: 'approved' })
  await api('POST', '/faqs', { question: 'Does it shrink?', answer: 'No, it is pre-washed.', productId: 'shirt', status: 'published' })
  const page = (await api('POST', '/web-pages', { url: `${allowed}/products/shirt`, type: 'product' })).json()
  for (
    const [widget, selector, settings] of [
      ['summary', '#summary', { productId: 'shirt' }],
      ['reviews', '#reviews', { productId: 'shirt', pageSize: 1 }],
      ['gallery', '#gallery', { galleryId: gallery.id }],
      ['faqs', '#faqs', { productId: 'shirt' }]
    ] as const
  ) {
    await api('POST', '/placements', { webPageId: page.id, widget, selector, settings })
  }
  html =
    `<!doctype html><html lang="en"><head><title>Linen shirt</title><style>button{background:red!important}body{font-family:serif}</style></head>
<body><h1>Linen shirt</h1><div id="summary"></div><div id="reviews"></div><div id="gallery"></div><div id="faqs"></div>
<script src="${base}/widget.js" data-store="${tenant.storeId}" async></script></body></html>`

  const open = async (origin: string, t: Parameters<typeof newPage>[0]): Promise<Page> => {
    const { page } = await newPage(t, browser)
    // Upload URLs name the configured PUBLIC_URL; the test's app listens on a port of its own.
    await page.route(
      'http://127.0.0.1:3000/**',
      (route) => route.continue({ url: route.request().url().replace('http://127.0.0.1:3000', base) })
    )
    await page.goto(`${origin}/products/shirt?utm_source=mail`)
    return page
  }

  t.test('a shopper reads reviews page by page, votes one helpful, favourites a photo and leaves a lead', async (t) => {
    const shopper = await open(allowed, t)
    await shopper.getByText('4.5 out of 5 · 2 reviews').waitFor()
    await shopper.getByText('My favourite shirt.').waitFor()
    t.pass('the newest review first')
    t.notOk(await shopper.getByText('Soft and true to size.').count(), 'one review per page')
    await shopper.getByRole('button', { name: 'Next' }).click()
    await shopper.getByText('Soft and true to size.').waitFor()
    t.notOk((await shopper.content()).includes('private.test'), 'no reviewer address reaches the page')
    t.equal(
      await shopper.locator('#reviews button', { hasText: 'Helpful' }).evaluate((b) => getComputedStyle(b).backgroundColor),
      'rgb(255, 255, 255)',
      'the shop\'s button style stays out'
    )

    await shopper.getByRole('button', { name: 'Helpful (0)' }).click()
    await shopper.getByRole('button', { name: 'Helpful (1)' }).waitFor()
    t.equal((await api('GET', '/reviews?productId=shirt&rating=4')).json().data[0].helpfulCount, 1, 'the vote is counted')

    await shopper.getByRole('button', { name: 'Favourite this photo' }).click()
    await shopper.getByText('Added to favourites').waitFor()
    t.equal((await api('GET', `/galleries/${gallery.id}/photos`)).json().data[0].favouriteCount, 1)

    await shopper.getByLabel('Email', { exact: true }).fill('shopper@example.test')
    await shopper.getByLabel('Name (optional)').fill('Sam')
    await shopper.getByLabel('I agree to be contacted by email').check()
    await shopper.getByRole('button', { name: 'Sign up' }).click()
    await shopper.getByText('Thank you, we will be in touch.').waitFor()
    t.match((await api('GET', `/galleries/${gallery.id}/leads`)).json().data, [{
      email: 'shopper@example.test',
      name: 'Sam',
      consent: true
    }])
    await shopper.getByText('Does it shrink?').click()
    t.ok(await shopper.getByText('No, it is pre-washed.').isVisible(), 'an FAQ opens by keyboard or click')
  })

  t.test('a shopper submits a review with a photo, and it waits for moderation', async (t) => {
    const shopper = await open(allowed, t)
    await shopper.getByLabel('Rating', { exact: true }).selectOption('5')
    await shopper.getByLabel('Title (optional)').fill('Great fit')
    await shopper.getByLabel('Your review').fill('Bought it for a wedding, looked sharp.')
    await shopper.getByLabel('Your name').fill('Jo')
    await shopper.getByLabel('Your email (never shown)').fill('jo@example.test')
    await shopper.getByLabel('Photo (optional)').setInputFiles({ name: 'me.jpg', mimeType: 'image/jpeg', buffer: JPEG })
    await shopper.getByRole('button', { name: 'Submit review' }).click()
    await shopper.getByText('Thank you! Your review will appear').waitFor()
    const pending = (await api('GET', '/reviews?status=pending')).json().data
    t.match(pending, [{
      title: 'Great fit',
      authorName: 'Jo',
      rating: 5,
      source: 'storefront',
      media: [{ type: 'image', mime: 'image/jpeg' }]
    }])
    await documented(shopper, 'widget')

    // The shop's side: the review waits on the moderation page, the only place with the reviewer's full address.
    const { page: admin } = await newPage(t, browser)
    await signIn(admin, base, tenant.owner.email, tenant.owner.password)
    await admin.goto(`${base}/admin/reviews`)
    await admin.getByText('jo@example.test').waitFor()
    await documented(admin, 'moderation')
    await admin.getByRole('button', { name: 'Publish' }).click()
    await admin.waitForURL(`${base}/admin/reviews?status=pending`)
    t.equal((await api('GET', '/reviews?status=published&rating=5')).json().meta.total, 2, 'published from the page')
  })

  t.test('the same page on an origin the store has not allowed shows nothing and receives nothing', async (t) => {
    const { page: shopper } = await newPage(t, browser)
    const answers: number[] = []
    const failed: string[] = []
    shopper.on('response', (res) => { if (res.url().includes('/v1/')) answers.push(res.status()) })
    shopper.on('requestfailed', (req) => { if (req.url().includes('/v1/')) failed.push(new URL(req.url()).pathname) })
    await shopper.goto(`${foreign}/products/shirt`)
    await shopper.waitForLoadState('networkidle')
    t.equal(await shopper.locator('#reviews').evaluate((el) => el.shadowRoot), null, 'no widget is mounted')
    t.notOk(await shopper.getByText('My favourite shirt.').count())
    t.same([...new Set(failed)], ['/v1/storefront/placements'], 'the widget asked for the page\'s placements only, in vain')
    t.same(answers, [], 'the CORS preflight was refused, so no answer of the API reached the page')
  })

  for (
    const [n, label, selector] of [[1, 'a selector the page cannot parse', '#1-reviews'], [
      2,
      'an element that cannot hold a shadow root',
      'ul.reviews'
    ]] as const
  ) {
    t.test(`a placement on ${label} leaves the page's other placements standing`, async (t) => {
      const path = `/faulty/${n}`
      const faulty = (await api('POST', '/web-pages', { url: `${allowed}${path}`, type: 'product' })).json()
      // Created first, so served first: placements are served oldest first.
      await api('POST', '/placements', { webPageId: faulty.id, widget: 'summary', selector, settings: { productId: 'shirt' } })
      await api('POST', '/placements', { webPageId: faulty.id, widget: 'faqs', selector: '#faqs', settings: { productId: 'shirt' } })
      pages.set(
        path,
        `<!doctype html><html lang="en"><head><title>Shirt</title></head><body><ul class="reviews" id="1-reviews"><li>Listed</li></ul>
<div id="faqs"></div><script src="${base}/widget.js" data-store="${tenant.storeId}" async></script></body></html>`
      )
      const { page: shopper } = await newPage(t, browser)
      await shopper.goto(`${allowed}${path}`)
      await shopper.getByText('Does it shrink?').waitFor()
      t.pass('the FAQs are shown')
      if (n === 2) {
        const inList = shopper.locator('ul.reviews > [data-evidence-hub]')
        await inList.locator('[data-widget="summary"]').waitFor()
        t.pass('the summary is shown in a box of its own inside the list')
        t.equal(await shopper.locator('ul.reviews > li').textContent(), 'Listed', 'the list keeps its own items')
      }
    })
  }
}
