/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 section 3): the realm always; `error` and `error_description`
 * only when a credential was sent and refused (a request with none gets no error code, section 3.1); the MCP
 * endpoint adds where its protected-resource metadata is (RFC 9728 section 5.1).
 */
export const REALM = 'evidence-hub'

export interface Challenge {
  /** The credential sent was refused (RFC 6750's `invalid_token`); absent when none was sent. */
  invalid?: { description: string }
  resourceMetadata?: string
}

/** RFC 6750 section 3 allows in these values printable ASCII but `"` and `\`; anything else is dropped. */
function quoted (value: string): string {
  return `"${value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '')}"`
}

export function bearerChallenge ({ invalid, resourceMetadata }: Challenge = {}): string {
  const params = [`realm=${quoted(REALM)}`]
  if (resourceMetadata) params.push(`resource_metadata=${quoted(resourceMetadata)}`)
  if (invalid) params.push('error="invalid_token"', `error_description=${quoted(invalid.description)}`)
  return `Bearer ${params.join(', ')}`
}
