import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { envelope, toPage } from '../../lib/pagination.js'
import { toMs } from '../../lib/formats.js'
import type { PartnersService } from './partners.service.js'
import * as schemas from './partners.schemas.js'

/**
 * A partner list is a handful of organizations: read whole, served as a page. With `updatedSince`
 * (docs/contract/api-conventions.md#incremental-sync), the grants made or changed at or after it, oldest change first,
 * as every such list orders them.
 */
function paged<T extends { updatedAt: string }> (
  data: T[],
  query: { page?: number, limit?: number, updatedSince?: string },
  id: (item: T) => string
) {
  const page = toPage(query)
  const since = toMs(query.updatedSince)
  const listed = since === null
    ? data
    : data.filter((item) => Date.parse(item.updatedAt) >= since).sort((a, b) =>
      Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || id(a).localeCompare(id(b))
    )
  return envelope(listed.slice(page.offset, page.offset + page.limit), listed.length, page)
}

export const partnersRoutes: FastifyPluginAsyncTypebox<{ service: PartnersService }> = async (app, { service }) => {
  app.post('/orgs/current/partners', { schema: schemas.grantPartner, config: { storeScoped: false } }, async (request, reply) => {
    const { grant, created } = await service.grant(request.credential!, request.body, request.ip)
    return reply.status(created ? 201 : 200).send(grant)
  })

  app.get('/orgs/current/partners', { schema: schemas.listPartners, config: { storeScoped: false } }, async (request) => {
    return paged((await service.list(request.credential!.orgId)).data, request.query, (grant) => grant.partnerOrgId)
  })

  app.delete(
    '/orgs/current/partners/:partnerOrgId',
    { schema: schemas.revokePartner, config: { storeScoped: false } },
    async (request, reply) => {
      await service.revoke(request.credential!, request.params.partnerOrgId, request.ip)
      return reply.status(204).send(null)
    }
  )

  app.get('/partner/clients', { schema: schemas.listClients, config: { storeScoped: false } }, async (request) => {
    return paged((await service.clients(request.credential!.orgId)).data, request.query, (client) => client.orgId)
  })
}
