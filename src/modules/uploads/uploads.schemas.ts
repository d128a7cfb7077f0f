import { Type } from '@sinclair/typebox'
import { ErrorBody, IdParams } from '../../schemas.js'

export const uploadImage = {
  tags: ['uploads'],
  summary: 'Upload a review image from the storefront (multipart field `image`); 5/s and 20/min per IP',
  description: 'Storefront: no credential; `x-store-env-id` and an allowed Origin. JPEG, PNG, WebP or GIF, decided by ' +
    'the file\'s content (a renamed text file gets 415 `unsupported_media_type`), at most 10 MB (413 ' +
    '`payload_too_large`). Pass the returned id in `mediaIds` of POST /reviews (or `logoUploadId` of PUT /email-branding) ' +
    'within 24 hours: an upload nothing takes by then is deleted.',
  security: [],
  consumes: ['multipart/form-data'],
  response: {
    201: Type.Object({ id: Type.String(), url: Type.String({ description: 'Public URL of the stored image' }) }),
    400: ErrorBody,
    403: ErrorBody,
    404: ErrorBody,
    413: ErrorBody,
    415: ErrorBody,
    429: ErrorBody
  }
}

export const getUpload = {
  tags: ['uploads'],
  summary: 'An uploaded image (public, no credential: the URL returned by the upload)',
  security: [],
  params: IdParams
}
