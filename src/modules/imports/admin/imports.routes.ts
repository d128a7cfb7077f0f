import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../../errors.js'
import { type ImportsService } from '../imports.service.js'
import { MAX_IMPORT_ITEMS } from '../imports.schemas.js'
import { currentStore, can, formErrorStatus, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'

export interface ImportServices { imports: ImportsService }

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const ListQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) })
/** As much JSON as POST /v1/imports takes (its 5 MB body), pasted or read from a file by admin.js. */
const MAX_JSON_CHARS = 5 * 1024 * 1024
const ImportForm = Type.Object({ json: Type.String({ maxLength: MAX_JSON_CHARS }) })
/** URL-encoding a JSON file takes up to three bytes for one (quotes, braces, commas), so the form may be that much larger. */
const FORM_BODY_LIMIT = 3 * MAX_JSON_CHARS + 64 * 1024

const SHAPE = 'The file must be one JSON object { "type": "reviews", "items": [ … ] }, as POST /v1/imports takes'

/** The items of an import file, or a refusal in the words of the page; each item is then judged by the service. */
function itemsOf (text: string): unknown[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new errors.InvalidRequest(`This is not valid JSON. ${SHAPE}.`)
  }
  const body = parsed as { type?: unknown, items?: unknown } | null
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(body.items)) throw new errors.InvalidRequest(`${SHAPE}.`)
  if (body.type !== 'reviews') throw new errors.InvalidRequest('type must be "reviews"')
  return body.items
}

/**
 * Review imports of the current store, through the service of /v1/imports: the list, one import with its per-item
 * errors, and a new import from a pasted (or, with admin.js, chosen) JSON file. A status is shown as the service
 * names it, so a status added there needs nothing here.
 */
export const importsPages: FastifyPluginAsync<{ services: ImportServices }> = async (app, { services }) => {
  const service = services.imports

  async function listPage (request: FastifyRequest, reply: FastifyReply, page: number, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'imports', 'read')
    const store = currentStore(ctx)
    const imports = await service.list(store.id, { page, limit: 50 })
    const canWrite = can(ctx, 'imports', 'write')
    return render(request, reply, 'imports/admin/views/imports', {
      title: 'Imports',
      store,
      imports,
      maxItems: MAX_IMPORT_ITEMS,
      canWrite,
      values: {},
      ...extra
    }, status)
  }

  app.get<{ Querystring: Static<typeof ListQuery> }>('/imports', { schema: { querystring: ListQuery } }, async (request, reply) =>
    listPage(request, reply, request.query.page ?? 1))

  app.post<{ Body: Static<typeof ImportForm> }>(
    '/imports',
    { schema: { body: ImportForm }, bodyLimit: FORM_BODY_LIMIT },
    async (request, reply) => {
      const ctx = requireAccess(request, 'imports', 'write')
      try {
        const done = await service.create(currentStore(ctx), itemsOf(request.body.json))
        setFlash(reply, {
          notice: `${done.imported} of ${done.received} reviews imported${done.failed > 0 ? `; ${done.failed} refused, listed below` : ''}.`
        })
        return redirect(reply, `/admin/imports/${done.id}`)
      } catch (err) {
        return listPage(request, reply, 1, { error: (err as Error).message, values: request.body }, formErrorStatus(err))
      }
    }
  )

  app.get<{ Params: Static<typeof IdParams> }>('/imports/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'imports', 'read')
    const found = await service.get(currentStore(ctx).id, request.params.id)
    return render(request, reply, 'imports/admin/views/import', { title: `Import ${found.id}`, imported: found })
  })
}
