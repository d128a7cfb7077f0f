import { triggerFor } from './catalogue.js'

/**
 * What polling returns and hook deliveries carry (docs/contract/connectors.md#triggers-and-polling):
 * `{ id, type, createdAt, ...data }`.
 */
export interface ConnectorItem {
  /** The event id: automation platforms de-duplicate on it, so it never changes for an event. */
  id: string
  type: string
  createdAt: string
  [field: string]: unknown
}

export interface EventLike { id: string, type: string, createdAt: string, data: Record<string, unknown> }

/**
 * Flattens an event into an item. `id`, `type` and `createdAt` are always the event's own; the record's id (a review's
 * `rev_…`) moves to the trigger's id field (`reviewId`) so it is not lost, and a record's own `type` to the trigger's
 * type field where it has one. A reviewer's address never reaches a connector (docs/contract/catalog.md#reviewer-email,
 * review note 1): only its last four characters do.
 */
export function toItem (event: EventLike): ConnectorItem {
  const { id: recordId, type: recordType, createdAt: _createdAt, ...fields } = event.data
  const trigger = triggerFor(event.type)
  const idField = trigger?.idField ?? 'objectId'
  const item: ConnectorItem = { id: event.id, type: event.type, createdAt: event.createdAt }
  if (recordId !== undefined && !(idField in fields)) item[idField] = recordId
  if (recordType !== undefined && trigger?.typeField && !(trigger.typeField in fields)) item[trigger.typeField] = recordType
  if (trigger?.resource === 'reviews' || event.type.startsWith('review.')) maskReviewer(fields)
  return Object.assign(item, fields)
}

function maskReviewer (fields: Record<string, unknown>): void {
  const email = fields.authorEmail
  delete fields.authorEmail
  if (typeof email === 'string' && fields.authorEmailLast4 === undefined) fields.authorEmailLast4 = email.slice(-4)
}
