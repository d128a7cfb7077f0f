import type { IAuthenticateGeneric, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow'

/**
 * A pasted API key (`svc_…`) and the store it acts on, for n8n instances that cannot reach the service's OAuth
 * screens or for scripts. Every request carries the key and the store header (x-store-env-id).
 */
export class EvidenceHubApi implements ICredentialType {
  name = 'evidenceHubApi'

  displayName = 'Evidence Hub API'

  icon: Icon = { light: 'file:../icons/evidence-hub.svg', dark: 'file:../icons/evidence-hub.dark.svg' }

  properties: INodeProperties[] = [
    {
      displayName: 'Base URL',
      name: 'baseUrl',
      type: 'string',
      default: 'http://127.0.0.1:3000',
      placeholder: 'https://hub.example.com',
      description: 'The service\'s public URL (its PUBLIC_URL), without a trailing slash',
      required: true
    },
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      placeholder: 'svc_…',
      description: 'An API key of the store\'s organization (admin application → API keys), with the scopes the workflows need',
      required: true
    },
    {
      displayName: 'Store Environment ID',
      name: 'storeEnvId',
      type: 'string',
      default: '',
      placeholder: 'env_…',
      description: 'The store the workflows act on, sent as x-store-env-id',
      required: true
    }
  ]

  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: {
      headers: {
        Authorization: '=Bearer {{$credentials.apiKey}}',
        'x-store-env-id': '={{$credentials.storeEnvId}}'
      }
    }
  }

  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.baseUrl}}',
      url: '/v1/connectors/me',
      method: 'GET'
    }
  }
}
