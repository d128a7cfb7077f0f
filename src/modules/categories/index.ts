import type { FastifyInstance } from 'fastify'
import { categoriesRoutes } from './categories.routes.js'
import { categoriesPages } from './admin/categories.routes.js'
import { defineModule } from '../../lib/module.js'
import { categoriesRepository } from './categories.repository.js'
import { categoriesService, type CategoriesService } from './categories.service.js'

export { categoriesRepository } from './categories.repository.js'
export { bodies } from './categories.schemas.js'
export { categoriesService, type CategoriesService, type CategoryInput } from './categories.service.js'

/** The store's category tree; products list theirs in `categoryIds` (docs/contract/resources.md#categories). */
export default async function categories (app: FastifyInstance) {
  await app.register(categoriesRoutes, { service: app.services.categories })
}

declare module '../../lib/module.js' {
  interface Services {
    categoriesRepo: ReturnType<typeof categoriesRepository>
    categories: CategoriesService
  }
}

declare module '../../lib/permissions.js' {
  interface ResourceNames { categories: true }
}

export const manifest = defineModule({
  name: 'categories',
  resources: {
    categories: { read: 'viewer', write: 'editor', area: 'Catalog & reviews', description: 'Product categories.' }
  },
  services: {
    categoriesRepo: ({ db }) => categoriesRepository(db),
    categories: ({ db, categoriesRepo, events, clock, bus }) => categoriesService({ db, repo: categoriesRepo, events, clock, bus })
  },
  emits: ['category.deleted'],
  admin: {
    pages: [categoriesPages],
    nav: [
      { label: 'Categories', path: '/admin/categories', resource: 'categories' }
    ]
  },
  routes: [{ plugin: categories, prefix: '/v1' }]
})
