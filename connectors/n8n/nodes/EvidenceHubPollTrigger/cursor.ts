import type { IDataObject } from 'n8n-workflow'

/** The newest event a poll has seen, per store and event type, kept in the workflow's static data. */
export interface Seen {
  id: string
  createdAt: string
}

/**
 * The items of a poll (newest first, as `GET /v1/connectors/triggers/:event` answers) that come after `seen`. Event
 * ids are opaque: they increase within a store but are compared for equality only. The items before the seen one
 * are new; if it is not among them (more new events than one poll reads, or it left the log), those that happened
 * after it are. `seen` undefined is the first poll: nothing is new, so activating a workflow does not replay history;
 * a seen `id` of '' means the store had no such event then, so everything is new.
 */
export function newItems (items: IDataObject[], seen: Seen | undefined): IDataObject[] {
  if (seen === undefined) return []
  const at = items.findIndex((item) => item.id === seen.id)
  if (at >= 0) return items.slice(0, at)
  return seen.createdAt === '' ? items : items.filter((item) => Date.parse(String(item.createdAt)) > Date.parse(seen.createdAt))
}

/** What the next poll starts from: the newest item, or `seen` as it was when nothing came. */
export function nextSeen (items: IDataObject[], seen: Seen | undefined): Seen {
  const [newest] = items
  if (newest) return { id: String(newest.id), createdAt: String(newest.createdAt) }
  return seen ?? { id: '', createdAt: '' }
}
