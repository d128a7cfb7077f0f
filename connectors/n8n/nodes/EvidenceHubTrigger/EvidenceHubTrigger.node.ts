import type { IDataObject, INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow'
import { NodeConnectionTypes } from 'n8n-workflow'
import { catalogue } from '../shared/catalogue'
import { AUTHENTICATION, CREDENTIALS, ICON } from '../shared/descriptions'
import { SIGNATURE_HEADER, verifyDelivery } from '../shared/signature'
import { checkExists, create, remove, type HookData } from './hooks'

/**
 * Starts a workflow the moment an event happens in the store. Activating the workflow subscribes a REST hook per
 * chosen event type (`POST /v1/connectors/hooks`) to this node's webhook URL, deactivating it unsubscribes; each
 * delivery must carry a valid `x-service-signature-v2` of its hook's secret, made within 300 seconds of now, before
 * it reaches the workflow. An item is `{ id, type, createdAt, …data }`, the same item the polling trigger gives.
 */
export class EvidenceHubTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Evidence Hub Trigger',
    name: 'evidenceHubTrigger',
    icon: ICON,
    group: ['trigger'],
    version: 1,
    subtitle: '={{$parameter["events"].join(", ")}}',
    description: 'Starts the workflow the moment an event happens in an Evidence Hub store (signed REST hook deliveries)',
    defaults: { name: 'Evidence Hub Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: CREDENTIALS,
    webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
    properties: [
      AUTHENTICATION,
      {
        displayName: 'Events',
        name: 'events',
        type: 'multiOptions',
        required: true,
        default: [],
        options: catalogue.triggers.map(({ event, label, description }) => ({ name: label, value: event, description })),
        description: 'The event types that start the workflow: one REST hook is subscribed for each'
      }
    ]
  }

  webhookMethods = { default: { checkExists, create, delete: remove } }

  async webhook (this: IWebhookFunctions): Promise<IWebhookResponseData> {
    const request = this.getRequestObject() as ReturnType<IWebhookFunctions['getRequestObject']> & { rawBody?: Buffer }
    const body = this.getBodyData() as IDataObject
    const { hooks = [] } = this.getWorkflowStaticData('node') as HookData
    const hook = hooks.find((candidate) => candidate.event === body.type)
    const header = this.getHeaderData()[SIGNATURE_HEADER]
    if (!hook || !request.rawBody || !verifyDelivery(header, request.rawBody, hook.secret)) {
      // Not from the service, or not for a hook of this workflow: nothing reaches the workflow.
      this.getResponseObject().status(401).json({
        message: 'The delivery is not signed by a hook of this workflow',
        code: 'invalid_signature'
      })
      return { noWebhookResponse: true }
    }
    return { workflowData: [this.helpers.returnJsonArray([body])] }
  }
}
