/**
 * ajv's errors rewritten for people: every problem with the path of its field ("authorName is required", not
 * "authorName must have required property 'authorName'"), a union of fixed values as the list of them, and the
 * failed branches of a union folded into one line. A failing request of modest size is validated with allErrors
 * (src/compilers.ts), so one answer lists every problem.
 */
export interface ValidationIssue {
  instancePath?: string
  keyword?: string
  message?: string
  params?: Record<string, unknown>
}

export interface Problem { path: string, message: string }

/** Enough to fix a request; a body with thousands of bad items does not get thousands of lines. */
const MOST = 20

function fieldOf (issue: ValidationIssue, context?: string): string {
  const base = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
  const extra = issue.params?.missingProperty ?? issue.params?.additionalProperty
  const field = extra === undefined ? base : base ? `${base}.${String(extra)}` : String(extra)
  return [context, field].filter(Boolean).join('.')
}

function listed (values: unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ')
}

function messageOf (issue: ValidationIssue, allowed: unknown[]): string {
  const params = issue.params ?? {}
  switch (issue.keyword) {
    case 'required': return 'is required'
    case 'additionalProperties': return 'is not a known field'
    case 'enum': return `must be one of: ${listed(params.allowedValues as unknown[])}`
    case 'const': return `must be ${JSON.stringify(params.allowedValue)}`
    case 'type': return `must be ${/^[aeiou]/.test(String(params.type)) ? 'an' : 'a'} ${String(params.type)}`
    case 'format': return `must be a valid ${String(params.format)}`
    case 'anyOf':
    case 'oneOf':
      return allowed.length > 0 ? `must be one of: ${listed(allowed)}` : 'does not match any of the allowed forms'
    default: return issue.message ?? 'is invalid'
  }
}

/**
 * A union's branches fail at the union's own path (or below it) before the union does; their fixed values become
 * the union's list, and they are not reported on their own.
 */
export function problemsOf (issues: readonly ValidationIssue[], context?: string): Problem[] {
  const unions = new Set(issues.filter((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf').map((i) => i.instancePath ?? ''))
  const insideUnion = (i: ValidationIssue) => i.keyword !== 'anyOf' && i.keyword !== 'oneOf' &&
    [...unions].some((path) => (i.instancePath ?? '') === path || (i.instancePath ?? '').startsWith(`${path}/`))
  const problems: Problem[] = []
  const seen = new Set<string>()
  for (const issue of issues) {
    if (insideUnion(issue)) continue
    const path = fieldOf(issue, context)
    const allowed = issues.filter((i) => insideUnion(i) && i.instancePath === issue.instancePath)
      .flatMap((i) => i.keyword === 'const' ? [i.params?.allowedValue] : i.keyword === 'enum' ? i.params?.allowedValues as unknown[] : [])
    const problem = { path, message: messageOf(issue, allowed) }
    const key = `${problem.path} ${problem.message}`
    if (seen.has(key)) continue
    seen.add(key)
    problems.push(problem)
    if (problems.length === MOST) break
  }
  return problems
}
