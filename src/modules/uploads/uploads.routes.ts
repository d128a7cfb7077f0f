import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import multipart from '@fastify/multipart'
import { MAX_IMAGE_BYTES, type UploadsService } from './uploads.service.js'
import { readImagePart } from './multipart.js'
import * as schemas from './uploads.schemas.js'

export const uploadsRoutes: FastifyPluginAsyncTypebox<{ service: UploadsService }> = async (app, { service }) => {
  await app.register(multipart, { limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 5, parts: 6 }, throwFileSizeLimit: true })

  app.post(
    '/uploads/image',
    { schema: schemas.uploadImage, config: { auth: 'storefront', storefrontLimit: 'uploads.image' } },
    async (request, reply) => {
      const { bytes } = await readImagePart(request, 'image')
      return reply.status(201).send(await service.storeImage(request.store!, bytes))
    }
  )

  app.get('/uploads/:id', { schema: schemas.getUpload, config: { auth: 'public' } }, async (request, reply) => {
    const { mime, bytes } = await service.read(request.params.id)
    return reply.type(mime).header('Cache-Control', 'public, max-age=31536000, immutable').header('X-Content-Type-Options', 'nosniff').send(
      bytes
    )
  })
}
