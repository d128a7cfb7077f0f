/**
 * Values a validated request may still carry that the databases cannot keep as sent: a non-finite number (ajv
 * coerces `?page=Infinity` to Infinity and then skips its own bounds; `1e400` in JSON parses to Infinity) and a
 * string with a lone surrogate (stored as U+FFFD, so `a\uD800` and `a\uDC00` would become one id).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

export interface Unstorable { instancePath: string, message: string }

function problemOf (value: unknown): string | null {
  if (typeof value === 'number' && !Number.isFinite(value)) return 'must be a finite number'
  if (typeof value === 'string' && LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it has a lone surrogate)'
  return null
}

/** The first such value in `value`, with its JSON pointer; walked without recursion (bodies can nest deeply). */
export function firstUnstorable (value: unknown): Unstorable | null {
  // Nearly every request holds none: look without building paths, and build them only to name the one found.
  return anyUnstorable(value) ? locate(value) : null
}

function anyUnstorable (value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const current = stack.pop()
    if (problemOf(current)) return true
    if (current && typeof current === 'object') {
      for (const key in current) stack.push((current as Record<string, unknown>)[key])
    }
  }
  return false
}

function locate (value: unknown): Unstorable | null {
  const stack: Array<[unknown, string]> = [[value, '']]
  while (stack.length > 0) {
    const [current, path] = stack.pop()!
    const problem = problemOf(current)
    if (problem) return { instancePath: path, message: problem }
    if (current && typeof current === 'object') {
      for (const [key, child] of Object.entries(current).reverse()) stack.push([child, `${path}/${key}`])
    }
  }
  return null
}

type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown, schemaEnv?: unknown }

/**
 * Wraps a route validator (ajv's, or a `{ value } | { error }` one) so that data it accepts is also refused when
 * it holds an unstorable value: a 400 `invalid_request` with the path, like any schema failure.
 */
export function storableOnly (validate: Validate): Validate {
  const wrapped: Validate = (data, context) => {
    const result = validate(data, context)
    if (result === false) {
      wrapped.errors = validate.errors
      return false
    }
    if (result && typeof result === 'object' && 'error' in result) return result
    const checked = result && typeof result === 'object' && 'value' in result ? (result as { value: unknown }).value : data
    const found = firstUnstorable(checked)
    if (!found) return result
    return { error: [{ keyword: 'storable', schemaPath: '#', params: {}, ...found }] }
  }
  // fastify passes the parent object only to validators with schemaEnv (ajv's), so ajv can coerce a root value.
  wrapped.schemaEnv = validate.schemaEnv
  return wrapped
}
