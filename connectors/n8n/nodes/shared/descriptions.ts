import type { INodeCredentialDescription, INodeProperties, INodeTypeDescription } from 'n8n-workflow'
import { CREDENTIAL_TYPES } from './transport'

export const ICON: INodeTypeDescription['icon'] = {
  light: 'file:../../icons/evidence-hub.svg',
  dark: 'file:../../icons/evidence-hub.dark.svg'
}

/** Both credentials, each shown for its choice of the Authentication parameter. */
export const CREDENTIALS: INodeCredentialDescription[] = [
  { name: CREDENTIAL_TYPES.oAuth2, required: true, displayOptions: { show: { authentication: ['oAuth2'] } } },
  { name: CREDENTIAL_TYPES.apiKey, required: true, displayOptions: { show: { authentication: ['apiKey'] } } }
]

export const AUTHENTICATION: INodeProperties = {
  displayName: 'Authentication',
  name: 'authentication',
  type: 'options',
  options: [
    { name: 'OAuth2', value: 'oAuth2', description: 'Connect by signing in and choosing the store (recommended)' },
    { name: 'API Key', value: 'apiKey', description: 'A pasted API key and store ID' }
  ],
  default: 'oAuth2'
}
