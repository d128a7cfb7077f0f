import type { FastifyRequest } from 'fastify'
import { errors } from '../../errors.js'

/** busboy's message when the multipart Content-Type has no `boundary` parameter. */
const NO_BOUNDARY = 'Multipart: Boundary not found'

/** A text field of a multipart request as read, whichever side of the file it came. */
export interface TextPart { type: 'field', value: unknown, valueTruncated: boolean }

/**
 * The one file of a multipart request, sent as the field `image`, read whole (within the limits the route's
 * @fastify/multipart registration sets), with every text field, sent before or after it: the order of the parts
 * changes nothing a caller can see (a field after the file was once dropped unchecked). `what` names the file in the
 * refusal when it is missing. The errors @fastify/multipart documents (`fastify.multipartErrors`: limits reached, a
 * body that is not multipart) carry their status and pass as they are; what busboy throws on a body it cannot read
 * (no boundary in the Content-Type, a body cut off before its closing boundary) is a plain Error, a 500 if left
 * alone: it is a 400.
 */
export async function readImagePart (request: FastifyRequest, what: string): Promise<{ bytes: Buffer, fields: Record<string, TextPart> }> {
  try {
    let bytes: Buffer | undefined
    const fields: Record<string, TextPart> = {}
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'image' || bytes) throw new errors.InvalidRequest(`Send the ${what} as the multipart field "image"`)
        bytes = await part.toBuffer()
      } else {
        fields[part.fieldname] = { type: 'field', value: part.value, valueTruncated: part.valueTruncated }
      }
    }
    if (!bytes) throw new errors.InvalidRequest(`Send the ${what} as the multipart field "image"`)
    return { bytes, fields }
  } catch (err) {
    if (typeof (err as { statusCode?: unknown }).statusCode === 'number') throw err
    throw new errors.InvalidRequest((err as Error).message === NO_BOUNDARY
      ? 'The multipart body cannot be read: its Content-Type names no boundary (multipart/form-data; boundary=…)'
      : 'The multipart body cannot be read: it is malformed or ends before its closing boundary')
  }
}
