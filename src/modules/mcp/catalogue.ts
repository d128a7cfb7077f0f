import type { FastifyInstance } from 'fastify'
import type { Catalogue, McpResource } from './server.js'
import { toolsFor, type RestOperation } from './tools.js'
import { once } from '../../lib/once.js'
import { changelogSource } from '../changelog/index.js'

const collected = new WeakMap<FastifyInstance, RestOperation[]>()

/** Every credential route under /v1, as fastify registers it (after the auth plugin filled in its defaults). */
export function collectOperations (app: FastifyInstance): RestOperation[] {
  const operations: RestOperation[] = []
  collected.set(app, operations)
  app.addHook('onRoute', (route) => {
    const config = route.config as Partial<RestOperation['config']> & { auth?: string } | undefined
    if (config?.auth !== 'credential' || !config.resource || !route.url.startsWith('/v1/')) return
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue
      operations.push({
        method,
        url: route.url,
        schema: route.schema as Record<string, unknown> | undefined,
        config: { ...config, resource: config.resource }
      })
    }
  })
  return operations
}

/**
 * The operations an app's MCP server serves as tools, once the app is ready: what generators outside the server
 * derive their own lists from (scripts/n8n-catalogue.ts), so that they cannot drift from the tools.
 */
export function operationsOf (app: FastifyInstance): RestOperation[] {
  const operations = collected.get(app)
  if (!operations) throw new Error('the MCP plugin was not registered on this app')
  return operations
}

/** The tools, and the documents an agent may want to read before calling them. */
export function catalogueOf (app: FastifyInstance, operations: RestOperation[], version: string): Catalogue {
  const publicUrl = app.config.publicUrl
  const resources: McpResource[] = [
    {
      uri: `${publicUrl}/v1/openapi.json`,
      name: 'openapi',
      title: 'OpenAPI document',
      description: 'The REST API these tools call, as OpenAPI 3.1: every operation, schema and error response.',
      mimeType: 'application/json',
      text: once(() => JSON.stringify(app.swagger()))
    },
    {
      uri: `${publicUrl}/docs/changelog.md`,
      name: 'changelog',
      title: 'API changelog',
      description: 'What changed in the API, newest first.',
      mimeType: 'text/markdown',
      text: changelogSource
    }
  ]
  return { tools: toolsFor(operations), resources, version }
}
