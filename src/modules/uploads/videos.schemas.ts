import { Type } from '@sinclair/typebox'
import { DateTime, ErrorBody, IdParams } from '../../schemas.js'
import { MAX_VIDEO_BYTES, VIDEO_TYPES } from './videos.service.js'

const storefrontDoc = 'Storefront: no credential. Send `x-store-env-id` and come from an origin the store allows ' +
  '(else 403 `origin_not_allowed`). Limited per visitor IP.'

export const issueUrl = {
  tags: ['reviews'],
  summary: 'Get a signed single-use URL to upload a review video; 1/s and 3/min per IP',
  description: storefrontDoc + ' PUT the video\'s bytes to `uploadUrl` within 15 minutes: the URL carries all it needs ' +
    '(its store and its token, which opens only that store\'s upload), like a pre-signed S3 URL, so no header is needed ' +
    'beside `Content-Type`; from a browser, the page\'s origin must still be one the store allows. Then name `videoId` in `mediaIds` of POST /reviews within 24 hours: a video no review names by then is deleted.',
  security: [],
  body: Type.Object({
    contentType: Type.Union(VIDEO_TYPES.map((type) => Type.Literal(type)), {
      description: 'Checked again against the bytes on upload: a video of another type is refused (415 `unsupported_media_type`)'
    }),
    size: Type.Integer({ minimum: 1, maximum: MAX_VIDEO_BYTES, description: 'Bytes; at most 100 MB. The upload may not be larger.' })
  }, { additionalProperties: false, examples: [{ contentType: 'video/mp4', size: 7_340_032 }] }),
  response: {
    201: Type.Object({
      videoId: Type.String(),
      uploadUrl: Type.String({ description: 'PUT the bytes here; the URL works once' }),
      expiresAt: DateTime
    }),
    400: ErrorBody,
    403: ErrorBody,
    404: ErrorBody,
    429: ErrorBody
  }
}

export const upload = {
  tags: ['reviews'],
  summary: 'Upload a review video to the signed URL from POST /reviews/video-upload-url (the raw bytes as the body)',
  description: 'Storefront: no credential. The signed URL names its store (`store`; an `x-store-env-id` header, if sent, ' +
    'must name the same store, else 410) and carries its token; a call from a browser must come from an origin the store ' +
    'allows (else 403 `origin_not_allowed`). Limited per visitor IP. The body is the video\'s raw bytes (a JSON or text body is 415 `unsupported_media_type`, ' +
    'none 400 `invalid_request`): MP4, WebM or QuickTime, of the `contentType` the URL was issued for, decided by ' +
    'content (415 `unsupported_media_type`), no larger than the size asked for (413 `payload_too_large`). The URL ' +
    'works once and for 15 minutes (410 `upload_url_expired`); a body refused for its type, or as empty, leaves it ' +
    'unused for the right file.',
  security: [],
  consumes: ['video/mp4', 'video/webm', 'video/quicktime', 'application/octet-stream'],
  params: IdParams,
  querystring: Type.Object({
    store: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The store the URL was issued for' })),
    token: Type.String({ minLength: 1, maxLength: 64 })
  }),
  response: {
    201: Type.Object({ videoId: Type.String(), mime: Type.String(), size: Type.Integer() }),
    400: ErrorBody,
    403: ErrorBody,
    404: ErrorBody,
    410: ErrorBody,
    413: ErrorBody,
    415: ErrorBody,
    429: ErrorBody
  }
}
