import type { FastifyInstance } from 'fastify'
import { crudRoutes } from '../content/index.js'
import type { FaqsService } from './faqs.service.js'
import { schemas } from './faqs.schemas.js'

export async function faqsRoutes (app: FastifyInstance, { service }: { service: FaqsService }) {
  crudRoutes(app, '/faqs', schemas, service, { create: ['invalid_request'], update: ['invalid_request'] })
}
