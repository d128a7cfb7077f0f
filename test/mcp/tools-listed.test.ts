import t from 'tap'
import { build, manualClock } from '../helper.js'
import { makeKey, makeTenant } from '../factories.js'
import { baseOf, callTool, connectClient, errorOf, toolNames } from './mcp-client.js'
import { operationsOf } from '../../src/modules/mcp/catalogue.js'
import { toolsFor } from '../../src/modules/mcp/tools.js'
import type { Role } from '../../src/lib/permissions.js'

/** The answers of a tool the credential may not call: what tools/list must have kept from it. */
const REFUSALS = new Set(['role_forbidden', 'role_read_only', 'insufficient_scope', 'credential_not_allowed', 'plan_required'])

const COMBINATIONS: Array<{ role: Exclude<Role, 'owner'>, scopes: string[] }> = [
  { role: 'editor', scopes: ['reviews:read'] },
  { role: 'viewer', scopes: ['orders:read'] },
  { role: 'editor', scopes: ['webhooks:write'] },
  { role: 'editor', scopes: ['events:read', 'connectors:read'] },
  { role: 'viewer', scopes: [] },
  { role: 'admin', scopes: ['outbound-webhooks:write', 'products:write'] }
]

// One app with a clock moved by hand: each credential calls every tool, far past its per-second budget otherwise.
t.test('tools/list shows exactly the tools a credential may call', async (t) => {
  const clock = manualClock()
  const app = await build(t, { clock })
  const base = await baseOf(app)
  const every = [...toolsFor(operationsOf(app)).values()]
  for (const { role, scopes } of COMBINATIONS) {
    t.test(`a ${role} key scoped to ${scopes.join(', ') || 'nothing'} can call every listed tool and no unlisted one`, async (t) => {
      const tenant = await makeTenant(app)
      const key = await makeKey(app, tenant, role, scopes)
      const client = await connectClient(t, base, key.secret, tenant.storeId)
      const listed = new Set(await toolNames(client))
      for (const tool of every) {
        clock.advance(6_100)
        // Refusals come before validation: arguments that name nothing are enough to tell them apart.
        const args = Object.fromEntries(tool.params.map((name) => [name, 'nope']))
        const res = await callTool(client, tool.name, args)
        const code = res.isError ? errorOf(res).code : null
        const callable = code === null || !REFUSALS.has(code)
        t.equal(callable, listed.has(tool.name), `${tool.name}: ${listed.has(tool.name) ? 'listed' : 'unlisted'}, answered ${code ?? 'ok'}`)
      }
    })
  }
})
