import type { FastifyInstance, FastifySchema } from 'fastify'
import type { StoreEnv } from '../../types.js'

/** The service side of a content resource's five operations. */
export interface CrudService<B, P, Q, O> {
  create: (store: StoreEnv, body: B) => Promise<O>
  list: (storeId: string, query: Q) => Promise<unknown>
  get: (storeId: string, id: string) => Promise<O>
  update: (store: StoreEnv, id: string, patch: P) => Promise<O>
  remove: (store: StoreEnv, id: string) => Promise<void>
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

  app.post(path, { schema: schemas.create, config: { errors: errors.create } }, async (request, reply) => {
    return reply.status(201).send(await service.create(store(request), request.body as B))
  })
  app.get(path, { schema: schemas.list }, async (request) => service.list(store(request).id, request.query as Q))
  app.get(`${path}/:id`, { schema: schemas.get }, async (request) => service.get(store(request).id, id(request)))
  app.patch(`${path}/:id`, { schema: schemas.update, config: { errors: errors.update } }, async (request) => {
    return service.update(store(request), id(request), request.body as P)
  })
  app.delete(`${path}/:id`, { schema: schemas.remove, config: { errors: errors.remove } }, async (request, reply) => {
    await service.remove(store(request), id(request))
    return reply.status(204).send(null)
  })
}
