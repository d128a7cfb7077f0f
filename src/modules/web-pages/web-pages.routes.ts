import type { FastifyInstance } from 'fastify'
import { crudRoutes } from '../content/index.js'
import type { WebPagesService } from './web-pages.service.js'
import { schemas } from './web-pages.schemas.js'

export async function webPagesRoutes (app: FastifyInstance, { service }: { service: WebPagesService }) {
  crudRoutes(app, '/web-pages', schemas, service, { create: ['conflict'], update: ['conflict'] })
}
