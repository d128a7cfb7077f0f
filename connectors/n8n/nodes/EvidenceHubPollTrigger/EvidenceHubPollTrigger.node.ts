import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow'
import { NodeConnectionTypes } from 'n8n-workflow'
import { catalogue } from '../shared/catalogue'
import { AUTHENTICATION, CREDENTIALS, ICON } from '../shared/descriptions'
import { apiRequest, connectionOf } from '../shared/transport'
import { newItems, nextSeen, type Seen } from './cursor'

/** The most a poll reads: the API's largest answer. More new events of one type between two polls need the instant trigger. */
export const POLL_LIMIT = 100

/**
 * Polls the store's events of one type (`GET /v1/connectors/triggers/:event`) on n8n's schedule and starts the
 * workflow with the new ones, newest first, each once: the workflow's static data keeps the newest event seen per
 * store and type. The first poll (on activation) only takes note of where the log is.
 */
export class EvidenceHubPollTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Evidence Hub Polling Trigger',
    name: 'evidenceHubPollTrigger',
    icon: ICON,
    group: ['trigger'],
    version: 1,
    subtitle: '={{$parameter["event"]}}',
    description: 'Checks an Evidence Hub store for new events of one type on a schedule',
    defaults: { name: 'Evidence Hub Polling Trigger' },
    polling: true,
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: CREDENTIALS,
    properties: [
      AUTHENTICATION,
      {
        displayName: 'Event',
        name: 'event',
        type: 'options',
        required: true,
        default: catalogue.triggers[0].event,
        options: catalogue.triggers.map(({ event, label, description }) => ({ name: label, value: event, description })),
        description: 'The event type to check for'
      }
    ]
  }

  async poll (this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
    const event = this.getNodeParameter('event') as string
    const manual = this.getMode() === 'manual'
    const path = `/v1/connectors/triggers/${encodeURIComponent(event)}`
    const items = await apiRequest(this, 'GET', path, { qs: { limit: manual ? 1 : POLL_LIMIT } }) as IDataObject[]
    // "Fetch Test Event" shows the newest event and moves no cursor.
    if (manual) return items.length > 0 ? [this.helpers.returnJsonArray(items)] : null
    const data = this.getWorkflowStaticData('node')
    const key = `${(await connectionOf(this)).storeEnvId}:${event}`
    const cursors = (data.cursors ?? {}) as Record<string, Seen>
    const fresh = newItems(items, cursors[key])
    // Assigned whole: n8n saves static data it sees changed at its top level.
    data.cursors = { ...cursors, [key]: nextSeen(items, cursors[key]) }
    return fresh.length > 0 ? [this.helpers.returnJsonArray(fresh)] : null
  }
}
