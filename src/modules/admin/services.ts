/** The services the admin pages call: the API's own, under the same names, so both follow one set of rules. */
export type { Services as AdminServices } from '../../lib/module.js'
