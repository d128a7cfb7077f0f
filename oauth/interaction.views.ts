import { escapeHtml as e } from './provider.js'

/** Server-rendered, plain and accessible pages: labelled fields, fieldsets with legends, no script. */
function page (title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)} · Evidence Hub</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
label{display:block;margin:.5rem 0}input[type=email],input[type=password],select{width:100%;padding:.4rem}
fieldset{margin:1rem 0}button{padding:.5rem 1rem;margin-right:.5rem}.error{color:#a00}</style></head>
<body><main>
${body}
</main></body></html>`
}

export function loginPage (input: { uid: string, csrf: string, clientName: string, email?: string, error?: string }): string {
  return page(
    'Sign in',
    `<h1>Sign in to connect ${e(input.clientName)}</h1>
${input.error ? `<p class="error" role="alert">${e(input.error)}</p>` : ''}
<form method="post" action="/oauth/interaction/${e(input.uid)}/login">
<input type="hidden" name="_csrf" value="${e(input.csrf)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${e(input.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<form method="post" action="/oauth/interaction/${e(input.uid)}/abort"><input type="hidden" name="_csrf" value="${e(input.csrf)}"><button type="submit">Cancel</button></form>`)
}

export interface ConsentView {
  uid: string
  csrf: string
  clientName: string
  /** The registering organization's name, or "this service" for operator-registered clients. */
  registeredBy: string
  scopes: Array<{ scope: string, words: string }>
  offline: boolean
  organizations: Array<{ id: string, name: string, role: string, stores: Array<{ id: string, name: string }> }>
  roles: string[]
  error?: string
}

export function consentPage (v: ConsentView): string {
  // docs/contract/oauth.md#consent: a person with one store finds it already chosen.
  const only = v.organizations.flatMap((org) => org.stores).length === 1 ? ' checked' : ''
  const orgs = v.organizations.map((org, i) => `<fieldset><legend>
<label><input type="radio" name="org" value="${e(org.id)}"${i === 0 ? ' checked' : ''} required> ${e(org.name)} (you are ${e(org.role)})</label></legend>
${org.stores.map((s) => `<label><input type="checkbox" name="stores" value="${e(s.id)}"${only}> ${e(s.name)} <small>${e(s.id)}</small></label>`).join('\n')}
</fieldset>`).join('\n')
  return page('Allow access', `<h1>${e(v.clientName)} wants access to your stores</h1>
<p>Registered by ${e(v.registeredBy)}.</p>
${v.error ? `<p class="error" role="alert">${e(v.error)}</p>` : ''}
<p>If you allow it, ${e(v.clientName)} may:</p>
<ul>${v.scopes.map((s) => `<li>${e(s.words)} <small>(${e(s.scope)})</small></li>`).join('')}
${v.offline ? '<li>stay connected until you revoke the connection</li>' : ''}</ul>
<form method="post" action="/oauth/interaction/${e(v.uid)}/consent">
<input type="hidden" name="_csrf" value="${e(v.csrf)}">
<h2>Organization and store environments</h2>
${orgs}
<label for="role">Acting with the role</label>
<select id="role" name="role">${v.roles.map((r) => `<option value="${e(r)}">${e(r)}</option>`).join('')}</select>
<p><small>The connection can never do more than your own role allows, and stops if you leave the organization.</small></p>
<button type="submit">Allow</button>
</form>
<form method="post" action="/oauth/interaction/${e(v.uid)}/abort"><input type="hidden" name="_csrf" value="${e(v.csrf)}"><button type="submit">Deny</button></form>`)
}

/** An organization's client shown to someone outside it: nothing to choose, only the way back. */
export function refusalPage (input: { uid: string, csrf: string, clientName: string, orgName: string }): string {
  return page('Cannot connect', `<h1>You cannot connect ${e(input.clientName)}</h1>
<p role="alert">${e(input.clientName)} was registered by ${e(input.orgName)}, and only its members can connect it. You are not a member of ${e(input.orgName)}.</p>
<form method="post" action="/oauth/interaction/${e(input.uid)}/abort"><input type="hidden" name="_csrf" value="${e(input.csrf)}"><button type="submit">Back to the application</button></form>`)
}

/** Scope strings in words for the consent screen. */
export function scopeInWords (scope: string): string {
  if (scope === 'read') return 'read everything your role can read'
  if (scope === 'write') return 'read and change everything your role can change'
  const [resource, action] = scope.split(':')
  return action === 'write' ? `read and change ${resource.replace(/-/g, ' ')}` : `read ${resource.replace(/-/g, ' ')}`
}
