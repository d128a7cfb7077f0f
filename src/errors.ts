import createError from '@fastify/error'

/**
 * Every error code the API answers with (docs/contract/api-conventions.md#errors, plus the ones a user of this API
 * needs to branch on). The body is always `{ message, code }`; see plugins/error-handler.ts.
 */
export const errors = {
  InvalidRequest: createError('invalid_request', '%s', 400),
  StoreEnvRequired: createError('store_env_required', 'The x-store-env-id header is required', 400),
  InvalidScope: createError(
    'invalid_scope',
    'Unknown scope: %s. A scope is `read`, `write`, or `<resource>:read` / `<resource>:write` with a resource of: %s',
    400
  ),
  InvalidExpiry: createError('invalid_expiry', '%s', 400),
  ExpiryExceedsCredential: createError(
    'expiry_exceeds_credential',
    'A key created by an expiring key must expire no later than it: give an expiresAt at or before %s',
    400
  ),
  InvalidUrl: createError('invalid_url', '%s', 400),
  InvalidEventType: createError('invalid_event_type', 'Unknown event type: %s', 400),
  BatchTooLarge: createError('batch_too_large', 'A batch holds at most %s items', 400),
  MissingCredentials: createError('missing_credentials', 'Send an API key as "Authorization: Bearer <key>" or "x-api-key"', 401),
  InvalidCredentials: createError('invalid_credentials', 'The credential is unknown, revoked or expired', 401),
  RoleForbidden: createError('role_forbidden', 'Your role does not allow this on %s', 403),
  RoleReadOnly: createError('role_read_only', 'A viewer credential cannot write', 403),
  CredentialNotAllowed: createError(
    'credential_not_allowed',
    'An OAuth access token cannot manage API keys, members, OAuth clients or partners; use an API key or the admin application',
    403
  ),
  InsufficientScope: createError('insufficient_scope', 'The credential\'s scopes do not allow %s on %s', 403),
  RoleEscalation: createError('role_escalation', 'A credential cannot create a credential with a role above its own', 403),
  ScopeEscalation: createError('scope_escalation', 'A credential cannot create a credential with scopes outside its own', 403),
  PlanRequired: createError('plan_required', 'This feature needs the %s plan or above', 403),
  SubscriptionExpired: createError('subscription_expired', 'The store\'s subscription has lapsed', 403),
  OriginNotAllowed: createError('origin_not_allowed', '%s', 403),
  StoreEnvNotFound: createError('store_env_not_found', 'Store environment not found', 404),
  NotFound: createError('not_found', '%s not found', 404),
  MethodNotAllowed: createError('method_not_allowed', '%s', 405),
  Conflict: createError('conflict', '%s', 409),
  PreconditionFailed: createError('precondition_failed', '%s', 412),
  PayloadTooLarge: createError('payload_too_large', 'The request body is too large', 413),
  UnsupportedMediaType: createError('unsupported_media_type', '%s', 415),
  RateLimited: createError('rate_limited', 'Too many requests, retry after %s seconds', 429),
  ServiceUnavailable: createError('service_unavailable', '%s', 503),
  InsufficientPoints: createError('insufficient_points', 'The account holds %s points; a transaction of %s would take it below zero', 409),
  IdempotencyKeyReused: createError(
    'idempotency_key_reused',
    'This idempotency key was already used with other points or another reason',
    409
  ),
  /**
   * The `Idempotency-Key` header sent again with another request (docs/contract/api-conventions.md#idempotent-requests).
   * The same code as loyalty's body field `idempotencyKey` (409 above, kept as it is), but 400: the request itself is wrong.
   */
  IdempotencyKeyMismatch: createError(
    'idempotency_key_reused',
    'This Idempotency-Key was already used with another request (method, path, store or body); send a new key for a new request',
    400
  ),
  IdempotencyKeyInProgress: createError(
    'idempotency_key_in_progress',
    'A request with this Idempotency-Key is still running; retry once it has answered',
    409
  ),
  UploadUrlExpired: createError('upload_url_expired', 'This upload URL has expired or was already used; ask for a new one', 410),
  InvalidSignature: createError('invalid_signature', '%s', 401)
}

/**
 * @fastify/error upper-cases codes; the API's codes are the lower-case names of
 * docs/contract/api-conventions.md#errors.
 */
const API_CODES = new Set<string>(Object.values(errors).map((E) => new E().code))

export function apiCode (code: string | undefined): string | undefined {
  return code && API_CODES.has(code) ? code.toLowerCase() : undefined
}
