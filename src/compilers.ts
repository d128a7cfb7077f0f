import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import { storableOnly } from './lib/storable.js'

/**
 * The schema compilers every app uses. Compiling each route's validators (ajv) and serializers
 * (fast-json-stringify) is most of what building an app costs, so a compiled function is kept per schema object
 * for the life of the process: an app built again in the same process (tests, several instances, the agent server)
 * reuses it. Route schemas are module constants, so the same object always means the same schema; a route that
 * refers to shared schemas (`external` not empty) is compiled afresh, since its meaning depends on them.
 */

// @fastify/ajv-compiler's typings cover only its own pool shapes; these are the parts used here.
type RouteValidator = (route: { schema: unknown, method: string, url: string, httpPart?: string }) => unknown
type ValidatorFactory = (external: unknown, options: { customOptions?: Record<string, unknown> }) => RouteValidator
type RouteSerializer = (route: { schema: unknown, method: string, url: string, httpStatus: string, contentType?: string }) => unknown
type SerializerFactory = (external: unknown, options: unknown) => RouteSerializer

const validators = new WeakMap<object, { strict?: unknown, loose?: unknown }>()
const serializers = new WeakMap<object, unknown>()

function isEmpty (external: unknown): boolean {
  return !external || (typeof external === 'object' && Object.keys(external).length === 0)
}

/**
 * JSON bodies under /v1 are validated as sent: `"scopes": "read"` or `"name": 123` is a 400, not silently turned
 * into `["read"]` or `"123"`. Querystrings, params and headers (all strings on the wire), and the form posts of the
 * admin and OAuth screens, keep ajv's type coercion. Whatever passes must also be storable (lib/storable.ts).
 */
export function typedJsonBodies (): ValidatorFactory {
  const coercing = AjvCompiler() as unknown as ValidatorFactory
  const exact = AjvCompiler() as unknown as ValidatorFactory
  return (external, options) => {
    const loose = coercing(external, options)
    const strict = exact(external, { ...options, customOptions: { ...options.customOptions, coerceTypes: false } })
    const cacheable = isEmpty(external)
    return (route) => {
      const kind = route.httpPart === 'body' && route.url.startsWith('/v1/') ? 'strict' : 'loose'
      const schema = route.schema
      const cached = cacheable && schema && typeof schema === 'object' ? validators.get(schema) : undefined
      if (cached?.[kind]) return cached[kind]
      const compiled = storableOnly((kind === 'strict' ? strict : loose)(route) as Parameters<typeof storableOnly>[0])
      if (cacheable && schema && typeof schema === 'object') validators.set(schema, { ...cached, [kind]: compiled })
      return compiled
    }
  }
}

/** fast-json-stringify, as fastify uses it by default, with each response schema's serializer kept. */
export function reusedSerializers (): SerializerFactory {
  const selector = SerializerSelector() as unknown as SerializerFactory
  return (external, options) => {
    const compile = selector(external, options)
    if (!isEmpty(external)) return compile
    return (route) => {
      const schema = route.schema
      if (!schema || typeof schema !== 'object') return compile(route)
      if (!serializers.has(schema)) serializers.set(schema, compile(route))
      return serializers.get(schema)
    }
  }
}
