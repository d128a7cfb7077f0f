import type { FastifyRequest } from 'fastify'
import type { MultipartFields } from '@fastify/multipart'
import { errors } from '../../errors.js'

/** busboy's message when the multipart Content-Type has no `boundary` parameter. */
const NO_BOUNDARY = 'Multipart: Boundary not found'

/**
 * The one file of a multipart request, sent as the field `image`, read whole (within the limits the route's
 * @fastify/multipart registration sets), with the fields sent before it; `what` names the file in the refusal when
 * it is missing. The errors @fastify/multipart documents (`fastify.multipartErrors`: limits reached, a body that is
 * not multipart) carry their status and pass as they are; what busboy throws on a body it cannot read (no boundary in
 * the Content-Type, a body cut off before its closing boundary) is a plain Error, a 500 if left alone: it is a 400.
 */
export async function readImagePart (request: FastifyRequest, what: string): Promise<{ bytes: Buffer, fields: MultipartFields }> {
  try {
    const file = await request.file()
    if (!file || file.fieldname !== 'image') throw new errors.InvalidRequest(`Send the ${what} as the multipart field "image"`)
    return { bytes: await file.toBuffer(), fields: file.fields }
  } catch (err) {
    if (typeof (err as { statusCode?: unknown }).statusCode === 'number') throw err
    throw new errors.InvalidRequest((err as Error).message === NO_BOUNDARY
      ? 'The multipart body cannot be read: its Content-Type names no boundary (multipart/form-data; boundary=…)'
      : 'The multipart body cannot be read: it is malformed or ends before its closing boundary')
  }
}
