import t from 'tap'
import { readFileSync } from 'node:fs'
import { sharedApp } from '../../../test/helper.js'
import { TRIGGERS } from '../../../src/modules/connectors/catalogue.js'
import { operationsOf } from '../../../src/modules/mcp/catalogue.js'
import { toolsFor } from '../../../src/modules/mcp/tools.js'
import { CATALOGUE_FILE, catalogueOfApp, catalogueText } from '../../../scripts/n8n-catalogue.js'
import { EvidenceHub, EvidenceHubTrigger, EvidenceHubPollTrigger, catalogue } from './package.js'

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

t.test('catalogue.json is what `npm run n8n:catalogue` writes from the service\'s tools and triggers now', async (t) => {
  const app = await sharedApp()
  t.ok(
    readFileSync(CATALOGUE_FILE, 'utf8') === catalogueText(catalogueOfApp(app)),
    'stale: run `npm run n8n:catalogue` and commit the result'
  )
})

t.test('the instant and the polling trigger offer exactly the event types of the trigger catalogue', async (t) => {
  const events = TRIGGERS.map((trigger) => trigger.key)
  const instant = new EvidenceHubTrigger().description.properties.find((p) => p.name === 'events')!
  const polling = new EvidenceHubPollTrigger().description.properties.find((p) => p.name === 'event')!
  t.same(instant.options!.map((o) => (o as { value: string }).value), events)
  t.same(polling.options!.map((o) => (o as { value: string }).value), events)
})

t.test('each operation of the action node calls its MCP tool\'s method and path', async (t) => {
  const tools = toolsFor(operationsOf(await sharedApp()))
  for (const operation of catalogue.resources.flatMap((r) => r.operations)) {
    const tool = tools.get(operation.tool)
    t.match(tool?.operation, { method: operation.method, url: operation.path }, operation.tool)
  }
})

t.test('the action node offers every resource and operation of the catalogue, with each required field', async (t) => {
  const properties = new EvidenceHub().description.properties
  const resources = properties.find((p) => p.name === 'resource')!.options!.map((o) => (o as { value: string }).value)
  t.same(resources, catalogue.resources.map((r) => r.value))
  for (const resource of catalogue.resources) {
    const operations = properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.[0] === resource.value)!
    t.same(operations.options!.map((o) => (o as { value: string }).value), resource.operations.map((o) => o.value), resource.value)
    for (const operation of resource.operations) {
      const shown = properties.filter((p) =>
        p.displayOptions?.show?.operation?.[0] === operation.value && p.displayOptions.show.resource?.[0] === resource.value
      )
      for (const field of operation.fields.filter((f) => f.required)) {
        t.ok(shown.some((p) => p.name === field.name && p.required), `${resource.value}.${operation.value}: ${field.name}`)
      }
      if (operation.bulk) {
        t.ok(shown.some((p) => p.name === operation.bulk!.property), `${resource.value}.${operation.value}: ${operation.bulk.property}`)
      }
    }
  }
})

t.test('the store actions of a store automation are there', async (t) => {
  const offered = catalogue.resources.flatMap((r) => r.operations.map((o) => `${r.value}.${o.value}:${o.tool}`))
  for (
    const wanted of [
      'review.getAll:list_reviews',
      'review.get:get_review',
      'review.updateStatus:update_review',
      'review.reply:update_review',
      'product.upsert:upsert_products',
      'order.upsert:upsert_orders',
      'customer.upsert:upsert_customers',
      'loyaltyAccount.addTransaction:create_loyalty_account_transaction',
      'outboundWebhook.redeliver:create_outbound_webhook_delivery_redeliver'
    ]
  ) {
    t.ok(offered.includes(wanted), wanted)
  }
})

t.test('the package is an n8n community node package naming a node and credential file for each source', async (t) => {
  t.equal(manifest.name, 'n8n-nodes-evidence-hub')
  t.ok(manifest.keywords.includes('n8n-community-node-package'))
  t.same(manifest.files, ['dist'])
  for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials] as string[]) {
    t.ok(readFileSync(new URL(`../${file.replace(/^dist\//, '').replace(/\.js$/, '.ts')}`, import.meta.url)), file)
  }
})
