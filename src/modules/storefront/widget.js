/*
 * Evidence Hub storefront widget (docs/contract/storefront.md#widget-reads). No framework, no key: the public store id
 * and the page URL decide what is shown. Embed with
 *   <script src="https://<service>/widget.js" data-store="env_…" async></script>
 * It reads the placements of this page and renders each widget into its selector, inside a Shadow DOM so the shop's
 * styles and the widget's never meet. A page whose origin the store has not allowed gets nothing (the API refuses it).
 */
(function () {
  'use strict'
  const script = document.currentScript
  if (!script) return
  const store = script.getAttribute('data-store')
  const api = new URL(script.src).origin + '/v1'
  if (!store) return

  const CSS = ':host{all:initial;display:block;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a}' +
    '*{box-sizing:border-box}section{border:1px solid #d0d5dd;border-radius:8px;padding:16px;margin:8px 0;background:#fff}' +
    'h2{font-size:1.25rem;margin:0 0 8px}h3{font-size:1rem;margin:0}p{margin:4px 0}ul{list-style:none;margin:0;padding:0}' +
    'li.review{border-top:1px solid #e4e7ec;padding:12px 0}.stars{color:#8a5a00;letter-spacing:2px}' +
    'button{font:inherit;background:#1d4ed8;color:#fff;border:0;border-radius:6px;padding:6px 12px;cursor:pointer}' +
    'button.quiet{background:#fff;color:#1d4ed8;border:1px solid #1d4ed8}button:disabled{opacity:.6;cursor:default}' +
    'button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}' +
    'label{display:block;font-weight:600;margin-top:8px}input,select,textarea{font:inherit;width:100%;padding:6px;border:1px solid #667085;border-radius:6px;color:#1a1a1a;background:#fff}' +
    'input[type=checkbox]{width:auto;margin-right:6px}label.check{display:flex;align-items:center;font-weight:400}' +
    '.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:8px}.grid figure{margin:0}' +
    '.grid img{width:100%;height:140px;object-fit:cover;border-radius:6px}.media img,.media video{max-width:160px;max-height:120px;margin:4px 4px 0 0;border-radius:4px}' +
    '.status{min-height:1.5em;font-weight:600}.pager{display:flex;gap:8px;align-items:center;margin-top:8px}' +
    '.bar{display:inline-block;height:8px;background:#1d4ed8;border-radius:4px;vertical-align:middle}.reply{background:#f2f4f7;padding:8px;border-radius:6px}'

  function call (method, path, body) {
    const options = { method, headers: { 'x-store-env-id': store } }
    if (body instanceof FormData) options.body = body
    else if (body !== undefined) {
      options.body = JSON.stringify(body)
      options.headers['content-type'] = 'application/json'
    }
    return fetch(api + path, options).then(function (res) {
      return res.json().catch(function () { return {} }).then(function (data) {
        if (!res.ok) throw new Error(data.message || 'Request failed')
        return data
      })
    })
  }

  /** A small element builder: el('p', { class: 'x' }, ['text', child]). Text always goes in as text, never HTML. */
  function el (tag, attrs, children) {
    const node = document.createElement(tag)
    Object.keys(attrs || {}).forEach(function (name) {
      if (name.slice(0, 2) === 'on') node.addEventListener(name.slice(2), attrs[name])
      else if (attrs[name] !== false && attrs[name] != null) node.setAttribute(name, attrs[name] === true ? '' : attrs[name])
    })
    ;(children || []).forEach(function (child) { if (child != null) node.append(child) })
    return node
  }

  let uid = 0
  function field (label, input) {
    input.id = 'eh-' + (++uid)
    return [el('label', { for: input.id }, [label]), input]
  }
  function stars (n) {
    return el('span', { class: 'stars', 'aria-label': n + ' out of 5 stars', role: 'img' }, ['★★★★★'.slice(0, n) + '☆☆☆☆☆'.slice(0, 5 - n)])
  }
  function status () {
    return el('p', { class: 'status', role: 'status', 'aria-live': 'polite' })
  }

  function summary (root, settings) {
    return call('GET', '/storefront/summary?productId=' + encodeURIComponent(settings.productId)).then(function (s) {
      const rows = [5, 4, 3, 2, 1].map(function (r) {
        const share = s.count ? Math.round(100 * s.distribution[r] / s.count) : 0
        return el('li', {}, [
          r + ' ★ ',
          el('span', { class: 'bar', style: 'width:' + share + 'px', 'aria-hidden': 'true' }),
          ' ' + s.distribution[r]
        ])
      })
      root.append(el('section', { 'aria-label': 'Rating summary' }, [
        el('h2', {}, [settings.heading || 'Customer rating']),
        s.count
          ? el('p', {}, [
            stars(Math.round(s.average)),
            ' ' + s.average + ' out of 5 · ' + s.count + (s.count === 1 ? ' review' : ' reviews')
          ])
          : el('p', {}, ['No reviews yet']),
        el('ul', {}, rows)
      ]))
    })
  }

  function badge (root, settings) {
    return call('GET', '/storefront/summary?productId=' + encodeURIComponent(settings.productId)).then(function (s) {
      if (s.count) root.append(el('p', { class: 'badge' }, [stars(Math.round(s.average)), ' ' + s.average + ' (' + s.count + ')']))
    })
  }

  function reviewItem (r) {
    const live = status()
    const helpful = el('button', {
      class: 'quiet',
      type: 'button',
      onclick: function () {
        helpful.disabled = true
        call('POST', '/reviews/' + r.id + '/helpful').then(function (res) {
          helpful.textContent = 'Helpful (' + res.helpfulCount + ')'
          live.textContent = 'Thanks for your vote'
        }, function (err) { helpful.disabled = false; live.textContent = err.message })
      }
    }, ['Helpful (' + r.helpfulCount + ')'])
    const media = r.media.map(function (m) {
      return m.type === 'video'
        ? el('video', { src: m.url, controls: true, preload: 'none', 'aria-label': 'Video from ' + r.authorName })
        : el('img', { src: m.url, alt: 'Photo from ' + r.authorName, loading: 'lazy' })
    })
    return el('li', { class: 'review' }, [
      el('h3', {}, [stars(r.rating), ' ', r.title || '']),
      el('p', {}, [r.body]),
      el('p', {}, [el('small', {}, [r.authorName + (r.verified ? ' · Verified buyer' : '') + ' · ' + r.writtenAt.slice(0, 10)])]),
      media.length ? el('div', { class: 'media' }, media) : null,
      r.reply ? el('p', { class: 'reply' }, ['Reply from the shop: ', r.reply.body]) : null,
      helpful, live
    ])
  }

  function reviews (root, settings) {
    const limit = settings.pageSize || 5
    const list = el('ul', { 'aria-live': 'polite' })
    const pager = el('div', { class: 'pager' })
    const section = el('section', { 'aria-label': 'Customer reviews' }, [
      el('h2', {}, [settings.heading || 'Customer reviews']),
      list,
      pager,
      reviewForm(settings)
    ])
    root.append(section)
    function show (page) {
      return call('GET', '/storefront/reviews?productId=' + encodeURIComponent(settings.productId) + '&limit=' + limit + '&page=' + page)
        .then(function (res) {
          list.replaceChildren.apply(list, res.data.length ? res.data.map(reviewItem) : [el('li', {}, ['No reviews yet. Be the first!'])])
          const pages = res.meta.totalPages
          pager.replaceChildren(
            el('button', {
              type: 'button',
              class: 'quiet',
              disabled: page <= 1,
              onclick: function () {
                show(page - 1)
              }
            }, ['Previous']),
            el('span', {}, ['Page ' + page + ' of ' + Math.max(pages, 1)]),
            el('button', {
              type: 'button',
              class: 'quiet',
              disabled: page >= pages,
              onclick: function () {
                show(page + 1)
              }
            }, ['Next'])
          )
        })
    }
    return show(1)
  }

  function uploadVideo (file) {
    return call('POST', '/reviews/video-upload-url', { contentType: file.type, size: file.size }).then(function (grant) {
      return fetch(grant.uploadUrl, { method: 'PUT', body: file, headers: { 'content-type': file.type, 'x-store-env-id': store } }).then(
        function (res) {
          if (!res.ok) throw new Error('The video could not be uploaded')
          return grant.videoId
        }
      )
    })
  }

  function reviewForm (settings) {
    const rating = el(
      'select',
      { required: true },
      [5, 4, 3, 2, 1].map(function (n) {
        return el('option', { value: n }, [n + (n === 1 ? ' star' : ' stars')])
      })
    )
    const title = el('input', { maxlength: 300 })
    const body = el('textarea', { required: true, rows: 4, maxlength: 10000 })
    const name = el('input', { required: true, maxlength: 200, autocomplete: 'name' })
    const email = el('input', { type: 'email', required: true, maxlength: 320, autocomplete: 'email' })
    const photo = el('input', { type: 'file', accept: 'image/jpeg,image/png,image/webp,image/gif' })
    const video = el('input', { type: 'file', accept: 'video/mp4,video/webm,video/quicktime' })
    const live = status()
    const submit = el('button', { type: 'submit' }, ['Submit review'])
    const form = el('form', {
      onsubmit: function (event) {
        event.preventDefault()
        submit.disabled = true
        live.textContent = 'Sending…'
        const uploads = []
        if (photo.files[0]) {
          const data = new FormData()
          data.append('image', photo.files[0])
          uploads.push(call('POST', '/uploads/image', data).then(function (res) { return res.id }))
        }
        if (video.files[0]) uploads.push(uploadVideo(video.files[0]))
        Promise.all(uploads).then(function (mediaIds) {
          return call('POST', '/reviews', {
            productId: settings.productId,
            rating: Number(rating.value),
            title: title.value || undefined,
            body: body.value,
            authorName: name.value,
            authorEmail: email.value,
            mediaIds
          })
        }).then(function () {
          form.reset()
          live.textContent = 'Thank you! Your review will appear once the shop has checked it.'
        }, function (err) { live.textContent = 'Sorry, that did not work: ' + err.message }).then(function () { submit.disabled = false })
      }
    }, [].concat(
      el('h3', {}, ['Write a review']),
      field('Rating', rating), field('Title (optional)', title), field('Your review', body), field('Your name', name),
      field('Your email (never shown)', email), field('Photo (optional)', photo), field('Video (optional, up to 100 MB)', video),
      [el('p', {}, [submit]), live]
    ))
    return form
  }

  function gallery (root, settings) {
    return call('GET', '/storefront/galleries/' + encodeURIComponent(settings.galleryId) + '?limit=' + (settings.pageSize || 12)).then(
      function (g) {
        const figures = g.photos.map(function (p) {
          const live = status()
          const fav = el('button', {
            type: 'button',
            class: 'quiet',
            'aria-label': 'Favourite this photo',
            onclick: function () {
              fav.disabled = true
              call('POST', '/galleries/' + g.id + '/favourites', { photoId: p.id }).then(function (res) {
                fav.textContent = '♥ ' + res.favouriteCount
                fav.setAttribute('aria-pressed', 'true')
                live.textContent = 'Added to favourites'
              }, function (err) {
                fav.disabled = false
                live.textContent = err.message
              })
            }
          }, ['♥ ' + p.favouriteCount])
          return el('figure', {}, [
            el('img', { src: p.imageUrl, alt: p.caption || ('Photo from ' + (p.authorName || 'a customer')), loading: 'lazy' }),
            el('figcaption', {}, [p.caption || '', p.authorName ? ' — ' + p.authorName : '']),
            fav,
            live
          ])
        })
        root.append(el('section', { 'aria-label': g.name }, [
          el('h2', {}, [settings.heading || g.name]),
          g.description ? el('p', {}, [g.description]) : null,
          el('div', { class: 'grid' }, figures.length ? figures : [el('p', {}, ['No photos yet'])]),
          leadForm(g.id)
        ]))
      }
    )
  }

  function leadForm (galleryId) {
    const email = el('input', { type: 'email', required: true, maxlength: 320, autocomplete: 'email' })
    const name = el('input', { maxlength: 200, autocomplete: 'name' })
    const consent = el('input', { type: 'checkbox', required: true })
    consent.id = 'eh-' + (++uid)
    const live = status()
    const form = el(
      'form',
      {
        onsubmit: function (event) {
          event.preventDefault()
          call('POST', '/galleries/' + galleryId + '/leads', {
            email: email.value,
            name: name.value || undefined,
            consent: consent.checked
          }).then(function () {
            form.reset()
            live.textContent = 'Thank you, we will be in touch.'
          }, function (err) {
            live.textContent = 'Sorry, that did not work: ' + err.message
          })
        }
      },
      [].concat(el('h3', {}, ['Stay in touch']), field('Email', email), field('Name (optional)', name), [
        el('label', { class: 'check', for: consent.id }, [consent, 'I agree to be contacted by email']),
        el('p', {}, [el('button', { type: 'submit' }, ['Sign up'])]),
        live
      ])
    )
    return form
  }

  function faqs (root, settings) {
    const query = '/storefront/faqs?limit=100' + (settings.productId ? '&productId=' + encodeURIComponent(settings.productId) : '')
    // Every question, a page at a time.
    function from (page, seen) {
      return call('GET', query + '&page=' + page).then(function (res) {
        const all = seen.concat(res.data)
        return page < res.meta.totalPages ? from(page + 1, all) : all
      })
    }
    return from(1, []).then(function (list) {
      if (!list.length) return
      root.append(
        el(
          'section',
          { 'aria-label': 'Questions and answers' },
          [el('h2', {}, [settings.heading || 'Questions and answers'])].concat(
            list.map(function (f) {
              return el('details', {}, [el('summary', {}, [f.question]), el('p', {}, [f.answer])])
            })
          )
        )
      )
    })
  }

  const WIDGETS = { summary, badge, reviews, gallery, faqs }

  // Not every element may hold a shadow root (a list, a table): the widget then lives in a div of its own inside it.
  function shadowOf (host) {
    if (host.shadowRoot) return host.shadowRoot
    try {
      return host.attachShadow({ mode: 'open' })
    } catch (e) {
      const inner = host.querySelector(':scope > [data-evidence-hub]') || host.appendChild(el('div', { 'data-evidence-hub': true }))
      return inner.shadowRoot || inner.attachShadow({ mode: 'open' })
    }
  }

  function mount (placement) {
    let host = null
    try { host = document.querySelector(placement.selector) } catch (e) { /* a selector this page cannot parse */ }
    const render = WIDGETS[placement.widget]
    if (!host || !render) return
    const root = shadowOf(host)
    root.replaceChildren(el('style', {}, [CSS]))
    const box = el('div', { 'data-widget': placement.widget })
    root.append(box)
    render(box, placement.settings || {}).catch(function () { box.remove() })
  }

  call('GET', '/storefront/placements?url=' + encodeURIComponent(window.location.href)).then(function (res) {
    // One placement that fails to mount leaves the page's others standing.
    res.data.forEach(function (placement) { try { mount(placement) } catch (e) { /* skipped */ } })
  }, function () { /* not allowed here, or unreachable: show nothing */ })
})()
