import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../errors.js'
import type { VideosService } from './videos.service.js'
import * as schemas from './videos.schemas.js'

/**
 * The body as the stream parser left it. Any other body (JSON or text, which fastify's own parsers read, or none) is
 * refused here, before the service claims the URL, so the visitor can send the bytes again to the same URL.
 */
function videoStream (body: unknown): AsyncIterable<Buffer> {
  if (body instanceof Readable) return body
  if (body === undefined) throw new errors.InvalidRequest('The upload is empty: send the video\'s bytes as the request body')
  throw new errors.UnsupportedMediaType(
    `Send the video's bytes as the request body, with Content-Type ${schemas.upload.consumes.join(', ')}`
  )
}

export const videosRoutes: FastifyPluginAsyncTypebox<{ service: VideosService }> = async (app, { service }) => {
  // The body stays a stream: the service checks the head by content and the size as the bytes arrive.
  app.addContentTypeParser(schemas.upload.consumes, (_request, payload, done) => done(null, payload))

  app.post('/reviews/video-upload-url', {
    schema: schemas.issueUrl,
    config: { auth: 'storefront', storefrontLimit: 'reviews.video-upload-url' }
  }, async (request, reply) => {
    return reply.status(201).send(await service.issueUrl(request.store!, request.body))
  })

  app.put('/uploads/videos/:id', {
    schema: schemas.upload,
    config: {
      auth: 'storefront',
      storefrontLimit: 'reviews.video-upload',
      signedUrl: true,
      errors: ['upload_url_expired', 'payload_too_large', 'unsupported_media_type']
    }
  }, async (request, reply) => {
    const created = await service.receive(request.store!, request.params.id, request.query.token, videoStream(request.body))
    return reply.status(201).send(created)
  })
}
