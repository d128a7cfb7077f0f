import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { actorOf } from '../types.js'

/**
 * Step 5, as the answer leaves (an `onSend` hook): every request a partner makes on a client's store, refused ones
 * included, lands in the client's audit log with the partner named (docs/contract/tenancy-and-roles.md#partner-access);
 * written before the response leaves, so it is there when it arrives.
 */
export function auditPartner (app: FastifyInstance) {
  const { audit } = app.services
  return async function record (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const credential = request.credential
    if (!credential?.partnerOrgId || !request.store) return
    await audit.record({
      orgId: request.store.orgId,
      action: 'partner.request',
      actor: actorOf(credential),
      subject: `store:${request.store.id}`,
      ip: request.ip,
      details: {
        partnerOrgId: credential.partnerOrgId,
        personId: credential.personId,
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode
      }
    })
  }
}
