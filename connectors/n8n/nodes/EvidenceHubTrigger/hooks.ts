import type { IDataObject, IHookFunctions } from 'n8n-workflow'
import { apiRequest, statusOf } from '../shared/transport'

/** A REST hook this node subscribed: kept in the workflow's static data, with the secret its deliveries are signed with. */
export interface Hook {
  id: string
  event: string
  secret: string
}

export interface HookData {
  hooks?: Hook[]
  targetUrl?: string
}

function hookData (ctx: IHookFunctions): IDataObject & HookData {
  return ctx.getWorkflowStaticData('node') as IDataObject & HookData
}

function sameEvents (hooks: Hook[], events: string[]): boolean {
  const subscribed = hooks.map((hook) => hook.event).sort()
  const wanted = [...new Set(events)].sort()
  return subscribed.length === wanted.length && subscribed.every((event, i) => event === wanted[i])
}

/**
 * Whether every hook of the static data still exists on the service, active, for this URL and event: n8n subscribes
 * anew when it does not. A hook deleted on the service's side answers 404 (and one disabled after failing for days
 * receives nothing), so the next activation re-creates it.
 */
export async function checkExists (this: IHookFunctions): Promise<boolean> {
  const data = hookData(this)
  const targetUrl = this.getNodeWebhookUrl('default')
  const events = this.getNodeParameter('events') as string[]
  if (!data.hooks?.length || data.targetUrl !== targetUrl || !sameEvents(data.hooks, events)) return false
  for (const hook of data.hooks) {
    try {
      const found = await apiRequest(this, 'GET', `/v1/connectors/hooks/${encodeURIComponent(hook.id)}`) as IDataObject
      if (found.status !== 'active' || found.targetUrl !== targetUrl || found.event !== hook.event) return false
    } catch (error) {
      if (statusOf(error) === 404) return false
      throw error
    }
  }
  return true
}

/** Unsubscribes each hook; one already gone (404) is gone. The static data forgets them all. */
async function unsubscribeAll (ctx: IHookFunctions, data: IDataObject & HookData): Promise<void> {
  for (const hook of data.hooks ?? []) {
    try {
      await apiRequest(ctx, 'DELETE', `/v1/connectors/hooks/${encodeURIComponent(hook.id)}`)
    } catch (error) {
      if (statusOf(error) !== 404) throw error
    }
  }
  data.hooks = []
  delete data.targetUrl
}

/**
 * One hook per chosen event type, all to this node's webhook URL. Hooks left from an earlier activation are removed
 * first; if one subscription fails, those made before it are removed too, so no half-subscribed workflow remains.
 */
export async function create (this: IHookFunctions): Promise<boolean> {
  const data = hookData(this)
  const targetUrl = this.getNodeWebhookUrl('default') as string
  const events = [...new Set(this.getNodeParameter('events') as string[])]
  await unsubscribeAll(this, data)
  const hooks: Hook[] = []
  try {
    for (const event of events) {
      const hook = await apiRequest(this, 'POST', '/v1/connectors/hooks', { body: { targetUrl, event } }) as IDataObject
      hooks.push({ id: String(hook.id), event, secret: String(hook.secret) })
    }
  } catch (error) {
    await unsubscribeAll(this, { hooks }).catch(() => undefined)
    throw error
  }
  data.hooks = hooks
  data.targetUrl = targetUrl
  return true
}

/** Unsubscribes when the workflow is deactivated (or a test listen ends). */
export async function remove (this: IHookFunctions): Promise<boolean> {
  try {
    await unsubscribeAll(this, hookData(this))
    return true
  } catch {
    return false
  }
}
