import type { FastifyInstance } from 'fastify'
import { faqsRoutes } from './faqs.routes.js'

export { faqsRepository } from './faqs.repository.js'
export { faqsService, type FaqsService } from './faqs.service.js'

/** FAQs shown by the storefront widget, per product or store-wide (docs/contract/resources.md#faqs). */
export default async function faqs (app: FastifyInstance) {
  await app.register(faqsRoutes, { service: app.services.faqs })
}
