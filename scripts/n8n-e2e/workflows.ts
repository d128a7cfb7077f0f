/**
 * The credentials and workflows the end-to-end run imports into n8n, as `n8n import:credentials` and
 * `n8n import:workflow` read them (credential data in the clear: the import encrypts it).
 */
const PACKAGE = 'n8n-nodes-evidence-hub'

export const IDS = {
  oauth: 'ehOAuthCred00001',
  apiKey: 'ehApiKeyCred0001',
  action: 'ehActionFlow0001',
  instant: 'ehInstantFlow001',
  polling: 'ehPollingFlow001'
}

export const PRODUCTS = [
  { platformProductId: 'n8n-sweater', title: 'Merino Crew Sweater' },
  { platformProductId: 'n8n-beanie', title: 'Alpaca Beanie' },
  { platformProductId: 'n8n-socks', title: 'Wool Hiking Socks' }
]

export function credentials (
  o: { base: string, clientId: string, clientSecret: string, token: Record<string, unknown>, apiKey: string, store: string }
) {
  return [
    {
      id: IDS.oauth,
      name: 'Evidence Hub (OAuth)',
      type: 'evidenceHubOAuth2Api',
      data: {
        baseUrl: o.base,
        grantType: 'pkce',
        authUrl: `${o.base}/oauth/auth`,
        accessTokenUrl: `${o.base}/oauth/token`,
        clientId: o.clientId,
        clientSecret: o.clientSecret,
        scope: 'read write offline_access',
        authQueryParameters: '',
        authentication: 'header',
        oauthTokenData: o.token
      }
    },
    {
      id: IDS.apiKey,
      name: 'Evidence Hub (API key)',
      type: 'evidenceHubApi',
      data: { baseUrl: o.base, apiKey: o.apiKey, storeEnvId: o.store }
    }
  ]
}

const oauth = { evidenceHubOAuth2Api: { id: IDS.oauth, name: 'Evidence Hub (OAuth)' } }
const apiKey = { evidenceHubApi: { id: IDS.apiKey, name: 'Evidence Hub (API key)' } }

/** Forwards each item it is given to the run's receiver, so the run sees exactly what the workflow got. */
function forward (url: string, position: [number, number]) {
  return {
    id: 'forward',
    name: 'Forward',
    type: 'n8n-nodes-base.httpRequest',
    typeVersion: 4.2,
    position,
    // One request at a time, in the items' order.
    parameters: {
      method: 'POST',
      url,
      sendBody: true,
      specifyBody: 'json',
      jsonBody: '={{ JSON.stringify($json) }}',
      options: { batching: { batch: { batchSize: 1, batchInterval: 10 } } }
    }
  }
}

function workflow (id: string, name: string, nodes: Array<{ name: string, [field: string]: unknown }>) {
  const connections = Object.fromEntries(
    nodes.slice(0, -1).map((node, i) => [node.name, { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] }])
  )
  return { id, name, nodes, connections, active: false, settings: { executionOrder: 'v1' }, pinData: {} }
}

export function workflows (receiver: string) {
  return [
    workflow(IDS.action, 'Upsert products and read them back', [
      { id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
      {
        id: 'upsert',
        name: 'Upsert products',
        type: `${PACKAGE}.evidenceHub`,
        typeVersion: 1,
        position: [220, 0],
        credentials: oauth,
        parameters: { authentication: 'oAuth2', resource: 'product', operation: 'upsert', products: JSON.stringify(PRODUCTS) }
      },
      {
        id: 'read',
        name: 'Read products',
        type: `${PACKAGE}.evidenceHub`,
        typeVersion: 1,
        position: [440, 0],
        credentials: oauth,
        parameters: { authentication: 'oAuth2', resource: 'product', operation: 'getAll', returnAll: true, filters: {} }
      }
    ]),
    workflow(IDS.instant, 'New review, instantly', [
      {
        id: 'instant',
        name: 'Evidence Hub Trigger',
        type: `${PACKAGE}.evidenceHubTrigger`,
        typeVersion: 1,
        position: [0, 0],
        webhookId: '6d1c0a52-4d6f-4a4f-9a8e-2f1b7c1e0a11',
        credentials: oauth,
        parameters: { authentication: 'oAuth2', events: ['review.created'] }
      },
      forward(`${receiver}/instant`, [220, 0])
    ]),
    workflow(IDS.polling, 'Products changed, polled', [
      {
        id: 'polling',
        name: 'Evidence Hub Polling Trigger',
        type: `${PACKAGE}.evidenceHubPollTrigger`,
        typeVersion: 1,
        position: [0, 0],
        credentials: apiKey,
        // Every five seconds, so the run waits seconds, not minutes (n8n refuses a `*` in the seconds field only).
        parameters: {
          authentication: 'apiKey',
          event: 'product.upserted',
          pollTimes: { item: [{ mode: 'custom', cronExpression: '0,5,10,15,20,25,30,35,40,45,50,55 * * * * *' }] }
        }
      },
      forward(`${receiver}/polling`, [220, 0])
    ])
  ]
}
