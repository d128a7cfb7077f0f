// Progressive enhancement only: every page works without this file.
(function () {
  'use strict'

  function copy (button) {
    const source = document.getElementById(button.getAttribute('data-copy'))
    if (!source) return
    const text = source.textContent
    const done = function () { button.textContent = 'Copied'; setTimeout(function () { button.textContent = 'Copy' }, 2000) }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { select(source); done() })
    } else {
      select(source)
      try { document.execCommand('copy') } catch (e) {}
      done()
    }
  }

  function select (node) {
    const range = document.createRange()
    range.selectNodeContents(node)
    const selection = window.getSelection()
    selection.removeAllRanges()
    selection.addRange(range)
  }

  // The create-key form: the Viewer role is offered no write option, read modes offer no write choice.
  function keyForm (form) {
    const role = form.querySelector('#key-role')
    const resources = form.querySelector('#key-resources')
    function sync () {
      const viewer = role.value === 'viewer'
      const writeMode = form.querySelector('[data-mode="resource-write"]')
      writeMode.hidden = viewer
      const writeRadio = writeMode.querySelector('input')
      writeRadio.disabled = viewer
      if (viewer && writeRadio.checked) form.querySelector('[data-mode="resource-read"] input').checked = true
      const checked = form.querySelector('input[name="mode"]:checked')
      const mode = checked ? checked.value : 'read'
      resources.hidden = mode === 'read'
      const allowWrite = mode === 'resource-write'
      form.querySelectorAll('option[data-write]').forEach(function (option) {
        option.hidden = !allowWrite
        option.disabled = !allowWrite
        if (!allowWrite && option.selected) option.parentNode.value = 'read'
      })
    }
    form.addEventListener('change', sync)
    sync()
  }

  // A file chosen for a textarea (the import page) is read into it: the form itself posts only text.
  function filePicker (input) {
    const target = document.getElementById(input.getAttribute('data-fill'))
    if (!target || typeof window.FileReader === 'undefined') return
    input.closest('label').hidden = false
    input.addEventListener('change', function () {
      const file = input.files && input.files[0]
      if (!file) return
      const reader = new window.FileReader()
      reader.onload = function () { target.value = reader.result }
      reader.readAsText(file)
    })
  }

  document.addEventListener('DOMContentLoaded', function () {
    document.querySelectorAll('input[type="file"][data-fill]').forEach(filePicker)
    document.querySelectorAll('button[data-copy]').forEach(function (button) {
      button.addEventListener('click', function () { copy(button) })
    })
    const form = document.getElementById('key-form')
    if (form) keyForm(form)
  })
})()
