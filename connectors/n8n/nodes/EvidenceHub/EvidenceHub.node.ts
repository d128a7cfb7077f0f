import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow'
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow'
import { catalogue } from '../shared/catalogue'
import { AUTHENTICATION, CREDENTIALS, ICON } from '../shared/descriptions'
import { runBulk, runOne } from './execute'
import { actionProperties } from './properties'

/**
 * The store's actions: reviews, products, orders, customers, loyalty accounts and outbound webhooks, each operation
 * one REST operation of the API as its catalogue describes it (catalogue.json, generated from the service).
 */
export class EvidenceHub implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Evidence Hub',
    name: 'evidenceHub',
    icon: ICON,
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description: 'Work with the reviews, products, orders, customers, loyalty and webhooks of an Evidence Hub store',
    defaults: { name: 'Evidence Hub' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: CREDENTIALS,
    properties: [AUTHENTICATION, ...actionProperties(catalogue)]
  }

  async execute (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const items = this.getInputData()
    const resource = this.getNodeParameter('resource', 0) as string
    const value = this.getNodeParameter('operation', 0) as string
    const operation = catalogue.resources.find((r) => r.value === resource)?.operations.find((o) => o.value === value)
    if (!operation) throw new NodeOperationError(this.getNode(), `The operation "${value}" of "${resource}" is not known`)
    if (operation.bulk) return [await runBulk(this, operation, items.length)]
    const out: INodeExecutionData[] = []
    for (let i = 0; i < items.length; i++) {
      try {
        out.push(...await runOne(this, operation, i))
      } catch (error) {
        if (!this.continueOnFail()) throw error
        out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } })
      }
    }
    return [out]
  }
}
