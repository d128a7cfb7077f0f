import type { Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow'

/**
 * OAuth 2 against the service's embedded provider (`<base URL>/oauth`, docs/oauth.md): authorization code with PKCE
 * (S256), refresh tokens that rotate on each use (n8n refreshes on a 401 and stores the new pair). The person who
 * connects chooses the store at consent; the token response names it as `store_env_id`, which the nodes send as
 * x-store-env-id on every call (n8n keeps the whole token response as `oauthTokenData`, refreshes included).
 */
export class EvidenceHubOAuth2Api implements ICredentialType {
  name = 'evidenceHubOAuth2Api'

  extends = ['oAuth2Api']

  displayName = 'Evidence Hub OAuth2 API'

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
      displayName: 'Grant Type',
      name: 'grantType',
      type: 'hidden',
      default: 'pkce'
    },
    {
      displayName: 'Authorization URL',
      name: 'authUrl',
      type: 'hidden',
      default: '={{$self["baseUrl"]}}/oauth/auth',
      required: true
    },
    {
      displayName: 'Access Token URL',
      name: 'accessTokenUrl',
      type: 'hidden',
      default: '={{$self["baseUrl"]}}/oauth/token',
      required: true
    },
    {
      // n8n asks for the default scope of a credential type whatever is stored (only its generic OAuth2 credential
      // has an editable scope): the plain read and write scopes, narrowed at consent by the role the person chooses.
      displayName: 'Scope',
      name: 'scope',
      type: 'hidden',
      default: 'read write offline_access'
    },
    {
      displayName: 'Auth URI Query Parameters',
      name: 'authQueryParameters',
      type: 'hidden',
      default: ''
    },
    {
      displayName: 'Authentication',
      name: 'authentication',
      type: 'hidden',
      default: 'header'
    }
  ]

  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.baseUrl}}',
      url: '/v1/connectors/me',
      method: 'GET',
      headers: { 'x-store-env-id': '={{$credentials.oauthTokenData.store_env_id}}' }
    }
  }
}
