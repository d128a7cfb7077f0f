import type { FastifyInstance } from 'fastify'
import { crudRoutes } from '../content/index.js'
import type { CategoriesService } from './categories.service.js'
import { schemas } from './categories.schemas.js'

export async function categoriesRoutes (app: FastifyInstance, { service }: { service: CategoriesService }) {
  crudRoutes(app, '/categories', schemas, service, { create: ['conflict'], update: ['conflict'], remove: ['conflict'] })
}
