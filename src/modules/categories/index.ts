import type { FastifyInstance } from 'fastify'
import { categoriesRoutes } from './categories.routes.js'
import { defineModule } from '../../lib/module.js'

export { categoriesRepository } from './categories.repository.js'
export { bodies } from './categories.schemas.js'
export { categoriesService, type CategoriesService, type CategoryInput } from './categories.service.js'

/** The store's category tree; products list theirs in `categoryIds` (docs/contract/resources.md#categories). */
export default async function categories (app: FastifyInstance) {
  await app.register(categoriesRoutes, { service: app.services.categories })
}

export const manifest = defineModule({ name: 'categories', routes: [{ plugin: categories, prefix: '/v1' }] })
