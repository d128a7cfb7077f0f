import { Type } from '@sinclair/typebox'
import { authErrors, ErrorBody, IdParams, PageQuery, Paged } from '../../schemas.js'
import { createAndPatch, crudSchemas, Nullable, ProductRef, PublishStatus, SinceQuery, Stamps } from '../content/index.js'

export const PhotoStatus = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')])

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 5000 })),
  productId: Nullable(ProductRef),
  status: { ...PublishStatus, description: 'Only a published gallery is shown and takes photos, leads and favourites; default draft' }
}

export const Gallery = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  productId: Type.Union([Type.String(), Type.Null()]),
  status: PublishStatus,
  ...Stamps
})

export const bodies = createAndPatch(fields, ['name'], {
  create: { name: 'Customer photos', description: 'Our shirts, worn by you', productId: 'sku-1001', status: 'published' },
  patch: { status: 'published' }
})

export const schemas = crudSchemas('galleries', 'a gallery', Gallery, bodies, {
  productId: Type.Optional(ProductRef),
  status: Type.Optional(PublishStatus)
}, authErrors)

/** A visitor's photo as the merchant sees it: the submitter's address as its last four characters only. */
export const Photo = Type.Object({
  id: Type.String(),
  galleryId: Type.String(),
  imageUrl: Type.String(),
  caption: Type.Union([Type.String(), Type.Null()]),
  authorName: Type.Union([Type.String(), Type.Null()]),
  authorEmailLast4: Type.Union([Type.String(), Type.Null()]),
  status: PhotoStatus,
  favouriteCount: Type.Integer(),
  ...Stamps
})

export const Lead = Type.Object({
  id: Type.String(),
  galleryId: Type.String(),
  email: Type.String({ description: 'Leads exist to be contacted: `galleries:read` shows the address' }),
  name: Type.Union([Type.String(), Type.Null()]),
  consent: Type.Boolean(),
  ...Stamps
})

const PhotoParams = Type.Object({ id: IdParams.properties.id, photoId: IdParams.properties.id })

export const listPhotos = {
  tags: ['galleries'],
  summary: 'List the photos visitors sent to a gallery, oldest change first',
  params: IdParams,
  querystring: Type.Object({ ...SinceQuery, status: Type.Optional(PhotoStatus) }),
  response: { 200: Paged(Photo), ...authErrors }
}

export const moderatePhoto = {
  tags: ['galleries'],
  summary: 'Approve or reject a visitor\'s photo',
  description: 'Only approved photos are shown on the storefront. Appends `gallery.photo.updated` when the status changes.',
  params: PhotoParams,
  body: Type.Object({ status: PhotoStatus }, { additionalProperties: false, examples: [{ status: 'approved' }] }),
  response: { 200: Photo, ...authErrors }
}

export const listLeads = {
  tags: ['galleries'],
  summary: 'List the leads a gallery\'s form collected, oldest change first',
  params: IdParams,
  querystring: Type.Object(SinceQuery),
  response: { 200: Paged(Lead), ...authErrors }
}

const storefrontErrors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 413: ErrorBody, 415: ErrorBody, 429: ErrorBody }
const storefrontDoc = 'Storefront: no credential. Send `x-store-env-id` and come from an origin the store allows ' +
  '(else 403 `origin_not_allowed`). Limited per visitor IP. The gallery must be published.'

export const submitPhoto = {
  tags: ['galleries'],
  summary:
    'Send a photo to a gallery from the storefront (multipart `image`, optional `caption`, `authorName`, `authorEmail`); 3/s and 10/min per IP',
  description: storefrontDoc + ' JPEG, PNG, WebP or GIF decided by content (415 `unsupported_media_type`), at most 10 MB ' +
    '(413 `payload_too_large`). The photo waits for moderation (`pending`).',
  security: [],
  consumes: ['multipart/form-data'],
  params: IdParams,
  response: { 201: Type.Object({ id: Type.String(), status: PhotoStatus }), ...storefrontErrors }
}

export const submitLead = {
  tags: ['galleries'],
  summary: 'Leave an address on a gallery\'s lead form; 3/s and 10/min per IP',
  description: storefrontDoc + ' `consent` must be true. Sending the same address again updates the name. The address ' +
    'becomes a customer of the store (`GET /customers`, without a platform id) or, if one has it, names that customer ' +
    'when they have no name; a suppressed address stays suppressed.',
  security: [],
  params: IdParams,
  body: Type.Object({
    email: Type.String({ format: 'email', maxLength: 320 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    consent: Type.Literal(true, { description: 'The visitor agreed to be contacted' })
  }, { additionalProperties: false, examples: [{ email: 'ann@example.com', name: 'Ann', consent: true }] }),
  response: { 201: Type.Object({ received: Type.Literal(true) }), ...storefrontErrors }
}

export const favourite = {
  tags: ['galleries'],
  summary: 'Favourite an approved photo of a gallery; one per visitor per photo; 5/s and 30/min per IP',
  description: storefrontDoc + ' A repeated favourite from the same visitor answers 200 with the unchanged count.',
  security: [],
  params: IdParams,
  body: Type.Object({ photoId: IdParams.properties.id }, {
    additionalProperties: false,
    examples: [{ photoId: 'gph_4kQ9xT1mZb7sW2aaaaaa' }]
  }),
  response: { 200: Type.Object({ favouriteCount: Type.Integer() }), ...storefrontErrors }
}

/** The storefront's view of a gallery: approved photos only, no addresses. */
export const PublicGallery = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  productId: Type.Union([Type.String(), Type.Null()]),
  photos: Type.Array(Type.Object({
    id: Type.String(),
    imageUrl: Type.String(),
    caption: Type.Union([Type.String(), Type.Null()]),
    authorName: Type.Union([Type.String(), Type.Null()]),
    favouriteCount: Type.Integer()
  })),
  meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer(), totalPages: Type.Integer() })
})

export const PublicGalleryQuery = Type.Object({
  ...PageQuery,
  updatedSince: Type.Optional(Type.String({ format: 'date-time', description: 'Only photos changed at or after this instant' }))
})
