import type { FastifyInstance } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import multipart from '@fastify/multipart'
import { errors } from '../../errors.js'
import { firstUnstorable } from '../../lib/storable.js'
import { MAX_IMAGE_BYTES, readImagePart, type TextPart } from '../uploads/index.js'
import { crudRoutes } from '../content/index.js'
import type { GalleriesService } from './galleries.service.js'
import type { GalleryVisitorsService, PhotoInput } from './gallery-visitors.service.js'
import * as schemas from './galleries.schemas.js'

const TEXT_FIELDS = { caption: 500, authorName: 200, authorEmail: 320 } as const
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** The optional text fields of a photo submission, checked as a JSON body's would be. */
function photoFields (fields: Record<string, TextPart>): PhotoInput {
  const input: Record<string, string> = {}
  for (const [name, max] of Object.entries(TEXT_FIELDS)) {
    const field = fields[name]
    if (!field) continue
    const value = String(field.value)
    if (value.length === 0) continue
    // Cut at the multipart fieldSize: longer than any field may be, even when what is left fits.
    if (field.valueTruncated || Array.from(value).length > max) {
      throw new errors.InvalidRequest(`${name} must NOT have more than ${max} characters`)
    }
    if (firstUnstorable(value)) throw new errors.InvalidRequest(`${name} must be valid Unicode text`)
    input[name] = value
  }
  if (input.authorEmail && !EMAIL.test(input.authorEmail)) throw new errors.InvalidRequest('authorEmail must be an email address')
  return input
}

export const galleriesRoutes: FastifyPluginAsyncTypebox<{ service: GalleriesService, visitors: GalleryVisitorsService }> = async (
  app,
  { service, visitors }
) => {
  await app.register(multipart, {
    limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 5, fieldSize: 2000, parts: 6 },
    throwFileSizeLimit: true
  })
  crudRoutes(app as unknown as FastifyInstance, '/galleries', schemas.schemas, service)

  app.get('/galleries/:id/photos', { schema: schemas.listPhotos }, async (request) => {
    return service.photos(request.store!.id, request.params.id, request.query)
  })

  app.patch('/galleries/:id/photos/:photoId', { schema: schemas.moderatePhoto }, async (request) => {
    return service.moderate(request.store!, request.params.id, request.params.photoId, request.body.status)
  })

  app.get('/galleries/:id/leads', { schema: schemas.listLeads }, async (request) => {
    return service.leads(request.store!.id, request.params.id, request.query)
  })

  app.post(
    '/galleries/:id/photos',
    { schema: schemas.submitPhoto, config: { auth: 'storefront', storefrontLimit: 'galleries.photo' } },
    async (request, reply) => {
      const { bytes, fields } = await readImagePart(request, 'photo')
      const created = await visitors.submitPhoto(request.store!, request.params.id, bytes, photoFields(fields))
      return reply.status(201).send(created)
    }
  )

  app.post(
    '/galleries/:id/leads',
    { schema: schemas.submitLead, config: { auth: 'storefront', storefrontLimit: 'galleries.lead' } },
    async (request, reply) => {
      return reply.status(201).send(await visitors.lead(request.store!, request.params.id, request.body))
    }
  )

  app.post('/galleries/:id/favourites', {
    schema: schemas.favourite,
    config: { auth: 'storefront', storefrontLimit: 'galleries.favourite' }
  }, async (request) => {
    return visitors.favourite(request.store!, request.params.id, request.body.photoId, request.ip)
  })
}
