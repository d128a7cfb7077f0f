import type { TObject } from '@sinclair/typebox'
import { errors } from '../../errors.js'
import { firstProblem } from '../../lib/bulk.js'

/**
 * A form's input checked with the API's own body schema, as the API checks it (lengths in characters, so an emoji
 * counts once; text the databases cannot keep refused): the first refusal is a 400 in the form's words, `labels`
 * naming the fields. A pattern is explained by the field's own description rather than shown as a regex.
 */
export function apiBodyCheck (schema: TObject, labels: Record<string, string>): (body: unknown) => void {
  const check = firstProblem(schema)
  return (body) => {
    const problem = check(body)
    if (!problem) return
    const field = problem.path.split('.')[0]
    const described = (schema.properties[field] as { description?: string } | undefined)?.description
    const why = problem.message.startsWith('must match pattern') && described ? described : problem.message
    throw new errors.InvalidRequest(`${labels[field] ?? (problem.path || 'The form')}: ${why}`)
  }
}
