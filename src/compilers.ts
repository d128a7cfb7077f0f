import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import { once } from './lib/once.js'
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
  const compilers = (allErrors: boolean) => {
    const coercing = AjvCompiler() as unknown as ValidatorFactory
    const exact = AjvCompiler() as unknown as ValidatorFactory
    return (external: unknown, options: { customOptions?: Record<string, unknown> }) => {
      const customOptions = { ...options.customOptions, allErrors }
      return {
        loose: coercing(external, { ...options, customOptions }),
        strict: exact(external, { ...options, customOptions: { ...customOptions, coerceTypes: false } })
      }
    }
  }
  const firstProblem = compilers(false)
  const everyProblem = compilers(true)
  return (external, options) => {
    // Each makes Ajv instances (with formats), which costs more than the rest of a rebuilt app's validation
    // set-up: made on the first schema not already compiled, so an app built again in a process makes none.
    let first: ReturnType<typeof firstProblem> | undefined
    let every: ReturnType<typeof everyProblem> | undefined
    const cacheable = isEmpty(external)
    return (route) => {
      const kind = route.httpPart === 'body' && route.url.startsWith('/v1/') ? 'strict' : 'loose'
      const schema = route.schema
      const cached = cacheable && schema && typeof schema === 'object' ? validators.get(schema) : undefined
      if (cached?.[kind]) return cached[kind]
      const listing = once(() => {
        every ??= everyProblem(external, options)
        return every[kind](route) as Validate
      })
      first ??= firstProblem(external, options)
      const compiled = storableOnly(listingProblems(first[kind](route) as Validate, listing) as Parameters<typeof storableOnly>[0])
      if (cacheable && schema && typeof schema === 'object') validators.set(schema, { ...cached, [kind]: compiled })
      return compiled
    }
  }
}

type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown, schemaEnv?: unknown }

/** Requests up to this size (as JSON) that fail are checked again to list every problem. */
const LIST_PROBLEMS_MAX_CHARS = 16_384

/**
 * ajv with allErrors walks every item of an over-long array even once `maxItems` has failed: a 2 MB body costs a
 * second of CPU (fastify's documentation warns of it). So a request is validated up to its first problem, and only
 * a failing one of modest size is validated again, with allErrors (compiled on first need), to list every problem.
 */
function listingProblems (first: Validate, every: () => Validate): Validate {
  const wrapped: Validate = (data, context) => {
    const result = first(data, context)
    if (result !== false) return result
    wrapped.errors = first.errors
    if (jsonLength(data) <= LIST_PROBLEMS_MAX_CHARS) {
      const all = every()
      if (all(data, context) === false) wrapped.errors = all.errors
    }
    return false
  }
  wrapped.schemaEnv = first.schemaEnv
  return wrapped
}

/**
 * The length of `data` as JSON. JSON.parse takes nesting of any depth, but JSON.stringify recurses: data nested
 * tens of thousands of levels deep (a hostile body) overflows the stack, and counts as too large to list.
 */
function jsonLength (data: unknown): number {
  try {
    return (JSON.stringify(data) ?? '').length
  } catch {
    return Infinity
  }
}

/** fast-json-stringify, as fastify uses it by default, with each response schema's serializer kept. */
export function reusedSerializers (): SerializerFactory {
  const selector = SerializerSelector() as unknown as SerializerFactory
  return (external, options) => {
    if (!isEmpty(external)) return selector(external, options)
    let compile: RouteSerializer | undefined
    return (route) => {
      compile ??= selector(external, options)
      const schema = route.schema
      if (!schema || typeof schema !== 'object') return compile(route)
      if (!serializers.has(schema)) serializers.set(schema, compile(route))
      return serializers.get(schema)
    }
  }
}
