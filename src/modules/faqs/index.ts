import type { FastifyInstance } from 'fastify'
import { faqsRoutes } from './faqs.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { FaqsService } from './faqs.service.js'
import { defineModule } from '../../lib/module.js'
import { faqsRepository } from './faqs.repository.js'
import { faqsService } from './faqs.service.js'

export { faqsRepository } from './faqs.repository.js'
export { faqsService, type FaqsService } from './faqs.service.js'

/** FAQs shown by the storefront widget, per product or store-wide (docs/contract/resources.md#faqs). */
export default async function faqs (app: FastifyInstance) {
  await app.register(faqsRoutes, { service: app.services.faqs })
}

/** A deleted category leaves the FAQs it held uncategorised, in the deletion's transaction. */
export function faqsReactions (bus: DomainBus, { faqs }: { faqs: FaqsService }) {
  bus.on('category.deleted', (trx, { store, categoryId }) => faqs.uncategorise(trx, store, categoryId))
}

declare module '../../lib/module.js' {
  interface Services {
    faqsRepo: ReturnType<typeof faqsRepository>
    faqs: FaqsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { faqs: true }
}

export const manifest = defineModule({
  name: 'faqs',
  resources: {
    faqs: { read: 'viewer', write: 'editor', area: 'Catalog & reviews', description: 'Product questions and answers.' }
  },
  services: {
    faqsRepo: ({ db }) => faqsRepository(db),
    faqs: ({ db, faqsRepo, events, clock, categoriesRepo }) => faqsService({
      db, repo: faqsRepo, events, clock, categoryExists: async (storeId, id, trx) => Boolean(await categoriesRepo.find(storeId, id, trx))
    })
  },
  reactions: faqsReactions,
  routes: [{ plugin: faqs, prefix: '/v1' }]
})
