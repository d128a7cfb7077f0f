import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { VideosService } from './videos.service.js'
import * as schemas from './videos.schemas.js'

export const videosRoutes: FastifyPluginAsyncTypebox<{ service: VideosService }> = async (app, { service }) => {
  // The body stays a stream: the service checks the head by content and the size as the bytes arrive.
  app.addContentTypeParser(['video/mp4', 'video/webm', 'video/quicktime', 'application/octet-stream'], (_request, payload, done) => done(null, payload))

  app.post('/reviews/video-upload-url', { schema: schemas.issueUrl, config: { auth: 'storefront', storefrontLimit: 'reviews.video-upload-url' } }, async (request, reply) => {
    return reply.status(201).send(await service.issueUrl(request.store!, request.body))
  })

  app.put('/uploads/videos/:id', { schema: schemas.upload, config: { auth: 'storefront', storefrontLimit: 'reviews.video-upload', errors: ['upload_url_expired', 'payload_too_large', 'unsupported_media_type'] } }, async (request, reply) => {
    const created = await service.receive(request.store!, request.params.id, request.query.token, request.body as AsyncIterable<Buffer>)
    return reply.status(201).send(created)
  })
}
