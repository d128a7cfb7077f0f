import type { FastifyInstance, FastifySchema } from 'fastify'
import type { StoreEnv } from '../../types.js'
import type { Precondition } from '../../lib/conditional.js'

/** The service side of a content resource's five operations. */
export interface CrudService<B, P, Q, O> {
  create: (store: StoreEnv, body: B) => Promise<O>
  list: (storeId: string, query: Q) => Promise<unknown>
  get: (storeId: string, id: string) => Promise<O>
  /** `precondition`: the request's If-Match, to check on the row once locked (content/writer.ts). */
  update: (store: StoreEnv, id: string, patch: P, precondition: Precondition | null) => Promise<O>
  remove: (store: StoreEnv, id: string, precondition: Precondition | null) => Promise<void>
}

interface CrudSchemas { create: FastifySchema, list: FastifySchema, get: FastifySchema, update: FastifySchema, remove: FastifySchema }

/**
 * POST /<path>, GET /<path>, GET|PATCH|DELETE /<path>/:id: handlers that only call the service. The resource, and so
 * role and scopes, comes from the path (pipeline/route-config.ts); `errors` names what the service itself can answer.
 */
export function crudRoutes<B, P, Q, O> (
  app: FastifyInstance,
  path: string,
  schemas: CrudSchemas,
  service: CrudService<B, P, Q, O>,
  errors: { create?: string[], update?: string[], remove?: string[] } = {}
) {
  type Req = { store?: StoreEnv | null, body: unknown, query: unknown, params: unknown }
  const store = (request: Req) => request.store!
  const id = (request: Req) => (request.params as { id: string }).id
  const ifMatch = (schemas.get.response as Record<number, object>)[200]

  app.post(path, { schema: schemas.create, config: { errors: errors.create } }, async (request, reply) => {
    return reply.status(201).send(await service.create(store(request), request.body as B))
  })
  app.get(path, { schema: schemas.list }, async (request) => service.list(store(request).id, request.query as Q))
  app.get(`${path}/:id`, { schema: schemas.get }, async (request) => service.get(store(request).id, id(request)))
  app.patch(`${path}/:id`, { schema: schemas.update, config: { errors: errors.update, ifMatch } }, async (request) => {
    return service.update(store(request), id(request), request.body as P, request.precondition)
  })
  app.delete(`${path}/:id`, { schema: schemas.remove, config: { errors: errors.remove, ifMatch } }, async (request, reply) => {
    await service.remove(store(request), id(request), request.precondition)
    return reply.status(204).send(null)
  })
}
