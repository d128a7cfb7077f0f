import fp from 'fastify-plugin'
import type { FastifyError } from 'fastify'
import { apiCode } from '../errors.js'

interface ValidationIssue { instancePath?: string, message?: string, params?: Record<string, unknown> }

function pathOf (issue: ValidationIssue, context?: string): string {
  const missing = issue.params?.missingProperty
  const base = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
  const field = missing ? (base ? `${base}.${String(missing)}` : String(missing)) : base
  return [context, field].filter(Boolean).join('.') || (context ?? '')
}

const PASS_THROUGH_FASTIFY = new Map<string, { status: number, code: string }>([
  ['FST_ERR_CTP_INVALID_JSON_BODY', { status: 400, code: 'invalid_request' }],
  ['FST_ERR_CTP_EMPTY_JSON_BODY', { status: 400, code: 'invalid_request' }],
  ['FST_ERR_CTP_BODY_TOO_LARGE', { status: 413, code: 'payload_too_large' }],
  ['FST_ERR_CTP_INVALID_MEDIA_TYPE', { status: 415, code: 'unsupported_media_type' }],
  ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', { status: 400, code: 'invalid_request' }],
  ['FST_REQ_FILE_TOO_LARGE', { status: 413, code: 'payload_too_large' }],
  ['FST_INVALID_MULTIPART_CONTENT_TYPE', { status: 415, code: 'unsupported_media_type' }]
])

/** decisions.md section 3: `{ message, code }`, nothing else leaks (no stack, no SQL). */
export default fp(async (app) => {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err.validation) {
      const errors = err.validation.map((issue) => ({
        path: pathOf(issue as ValidationIssue, err.validationContext === 'body' ? undefined : err.validationContext),
        message: issue.message ?? 'is invalid'
      }))
      return reply.status(400).send({ message: `Invalid request: ${errors.map((e) => `${e.path || 'body'} ${e.message}`).join('; ')}`, code: 'invalid_request', errors })
    }
    const code = apiCode(err.code)
    if (code) return reply.status(err.statusCode ?? 500).send({ message: err.message, code })
    const known = err.code ? PASS_THROUGH_FASTIFY.get(err.code) : undefined
    if (known) return reply.status(known.status).send({ message: err.message, code: known.code })
    if (isDatabaseDown(err)) {
      return reply.status(503).send({ message: 'The database is unreachable', code: 'service_unavailable' })
    }
    const status = err.statusCode ?? 500
    if (status >= 500) {
      request.log.error({ err }, 'unhandled error')
      return reply.status(500).send({ message: 'Internal server error', code: 'internal_error' })
    }
    // Other 4xx from fastify or its plugins: their message is written for clients, but their codes are not ours.
    return reply.status(status).send({ message: err.message, code: 'invalid_request' })
  })

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ message: `Route ${request.method} ${request.url.split('?')[0]} not found`, code: 'not_found' })
  })
}, { name: 'error-handler' })

const DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'PROTOCOL_CONNECTION_LOST', 'EPIPE', 'ER_CON_COUNT_ERROR'])

export function isDatabaseDown (err: { code?: string, name?: string }): boolean {
  return DOWN_CODES.has(err.code ?? '') || err.name === 'KnexTimeoutError'
}
