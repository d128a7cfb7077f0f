import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { envelope, toPage } from '../../lib/pagination.js'
import type { PartnersService } from './partners.service.js'
import * as schemas from './partners.schemas.js'

/** A partner list is a handful of organizations: read whole, served as a page. */
function paged<T> (data: T[], query: { page?: number, limit?: number }) {
  const page = toPage(query)
  return envelope(data.slice(page.offset, page.offset + page.limit), data.length, page)
}

export const partnersRoutes: FastifyPluginAsyncTypebox<{ service: PartnersService }> = async (app, { service }) => {
  app.post('/orgs/current/partners', { schema: schemas.grantPartner, config: { storeScoped: false } }, async (request, reply) => {
    const { grant, created } = await service.grant(request.credential!, request.body, request.ip)
    return reply.status(created ? 201 : 200).send(grant)
  })

  app.get('/orgs/current/partners', { schema: schemas.listPartners, config: { storeScoped: false } }, async (request) => {
    return paged((await service.list(request.credential!.orgId)).data, request.query)
  })

  app.delete('/orgs/current/partners/:partnerOrgId', { schema: schemas.revokePartner, config: { storeScoped: false } }, async (request, reply) => {
    await service.revoke(request.credential!, request.params.partnerOrgId, request.ip)
    return reply.status(204).send(null)
  })

  app.get('/partner/clients', { schema: schemas.listClients, config: { storeScoped: false } }, async (request) => {
    return paged((await service.clients(request.credential!.orgId)).data, request.query)
  })
}
