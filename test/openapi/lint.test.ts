import t from 'tap'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { sharedApp } from '../helper.js'

t.test('the OpenAPI document passes Redocly\'s recommended rules with no error', async (t) => {
  const app = await sharedApp()
  const source = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).body
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) })
  t.same(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`), [])
  // Every operation has an operationId: the name generated clients and the MCP tools use.
  t.same(problems.filter((p) => p.ruleId === 'operation-operationId').map((p) => p.location[0]?.pointer), [])
})
