import type { FastifyInstance } from 'fastify'
import { productsRoutes } from './products.routes.js'
import type { DomainBus } from '../../lib/domain-events.js'
import type { ProductsService } from './products.service.js'
import { defineModule } from '../../lib/module.js'
import { productsRepository, type ProductsRepository } from './products.repository.js'
import { productsService } from './products.service.js'

export { type ProductRow, productsRepository, type ProductsRepository } from './products.repository.js'
export { BulkResult } from './products.schemas.js'
export { isOlder, MAX_BATCH, productsService, type ProductsService } from './products.service.js'

/** Products synced from the store platform (bulk upsert keyed on platformProductId). */
export default async function products (app: FastifyInstance) {
  await app.register(productsRoutes, { service: app.services.products })
}

/** A deleted category leaves the products it held uncategorised, in the deletion's transaction. */
export function productsReactions (bus: DomainBus, { products }: { products: ProductsService }) {
  bus.on('category.deleted', (trx, { store, categoryId }) => products.uncategorise(trx, store, categoryId))
}

declare module '../../lib/module.js' {
  interface Services {
    productsRepo: ProductsRepository
    products: ProductsService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { products: true }
}

export const manifest = defineModule({
  name: 'products',
  resources: {
    products: { read: 'viewer', write: 'editor', area: 'Catalog & reviews', description: 'The product catalog reviews are attached to.' }
  },
  services: {
    productsRepo: ({ db }) => productsRepository(db),
    products: ({ db, productsRepo, events, clock }) => productsService({ db, repo: productsRepo, events, clock })
  },
  reactions: productsReactions,
  routes: [{ plugin: products, prefix: '/v1' }]
})
