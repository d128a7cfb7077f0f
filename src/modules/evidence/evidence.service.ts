import { SignJWT, type JWK, importJWK } from 'jose'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { newId } from '../../lib/ids.js'
import type { StoreEnv } from '../../types.js'
import type { ProductsRepository } from '../products/index.js'
import type { EvidenceRepository, PublishedReview } from './evidence.repository.js'
import { productJsonLd } from './jsonld.js'

export interface GalleryPhoto { id: string, url: string, caption: string | null, source: 'review' | 'gallery', reviewId: string | null }

/**
 * Where photos of a product come from besides review media: the galleries module, wired in src/services.ts once it
 * exists. Returns at most `limit` approved photos of the product, newest first.
 */
export type GalleryPhotosSource = (storeId: string, platformProductId: string, limit: number) => Promise<GalleryPhoto[]>

interface Deps {
  repo: EvidenceRepository
  products: ProductsRepository
  clock: Clock
  issuer: string
  galleryPhotos?: GalleryPhotosSource
  /**
   * Appends `evidence_snapshot.created` (docs/contract/event-visibility.md#every-change-appends-an-event: every change
   * appends an event).
   */
  record?: (event: { orgId: string, storeEnvId: string, type: string, data: Record<string, unknown> }) => Promise<void>
}

export const RECENT_REVIEWS = 10
export const GALLERY_PHOTOS = 12
/** The media type of a snapshot's JOSE header: a verifier refuses any other JWT signed by the same keys. */
export const SNAPSHOT_TYPE = 'evidence-snapshot+jwt'

function presentPublic (row: PublishedReview) {
  return {
    id: row.id,
    rating: Number(row.rating),
    title: row.title,
    body: row.body,
    authorName: row.author_name,
    verified: Boolean(Number(row.verified)),
    reply: row.reply == null ? null : { body: row.reply, repliedAt: iso(row.replied_at)! },
    writtenAt: iso(row.written_at)!
  }
}

function reviewPhotos (rows: PublishedReview[], limit: number): GalleryPhoto[] {
  const photos = rows.flatMap((row) => (JSON.parse(row.media) as Array<{ id: string, url: string }>)
    .map((m) => ({ id: m.id, url: m.url, caption: row.title, source: 'review' as const, reviewId: row.id })))
  return photos.slice(0, limit)
}

export function evidenceService ({ repo, products, clock, issuer, galleryPhotos, record }: Deps) {
  async function evidence (storeId: string, productId: string) {
    const product = (await products.findByKeys(storeId, [productId])).get(productId)
    if (!product) throw new errors.NotFound('Product')
    const [cells, recent, withMedia, lastChange, gallery] = await Promise.all([
      repo.ratingCells(storeId, productId),
      repo.recent(storeId, productId, RECENT_REVIEWS),
      repo.withMedia(storeId, productId, GALLERY_PHOTOS),
      repo.lastChange(storeId, productId),
      galleryPhotos ? galleryPhotos(storeId, productId, GALLERY_PHOTOS) : Promise.resolve([])
    ])
    const distribution = { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 } as Record<1 | 2 | 3 | 4 | 5, number>
    let count = 0
    let sum = 0
    let verified = 0
    for (const cell of cells) {
      distribution[cell.rating as 1 | 2 | 3 | 4 | 5] += cell.n
      count += cell.n
      sum += cell.rating * cell.n
      if (cell.verified) verified += cell.n
    }
    const photos = reviewPhotos(withMedia, GALLERY_PHOTOS)
    return {
      product: {
        platformProductId: product.platform_product_id,
        title: product.title,
        url: product.url,
        imageUrl: product.image_url
      },
      rating: { average: count ? Math.round(sum / count * 100) / 100 : null, count, distribution },
      verifiedShare: count ? Math.round(verified / count * 10_000) / 10_000 : null,
      recentReviews: recent.map(presentPublic),
      galleryPhotos: [...gallery, ...photos].slice(0, GALLERY_PHOTOS),
      updatedAt: iso(Math.max(Number(product.updated_at), lastChange ?? 0))!
    }
  }

  return {
    get: evidence,

    async jsonLd (storeId: string, productId: string) {
      return productJsonLd(await evidence(storeId, productId))
    },

    /**
     * The evidence signed as a compact JWS (a JWT of type evidence-snapshot+jwt) with the service's OIDC signing
     * key, so anyone can check it offline against the keys published at /oauth/jwks.
     */
    async snapshot (store: StoreEnv, productId: string, key: JWK) {
      const { galleryPhotos: _photos, ...signed } = await evidence(store.id, productId)
      const now = clock()
      const id = newId('snap')
      const alg = key.alg ?? 'RS256'
      const jws = await new SignJWT({ storeEnvId: store.id, evidence: signed })
        .setProtectedHeader({ alg, kid: key.kid, typ: SNAPSHOT_TYPE })
        .setIssuer(issuer)
        .setSubject(`${store.id}/products/${productId}`)
        .setIssuedAt(Math.floor(now / 1000))
        .setJti(id)
        .sign(await importJWK(key, alg))
      await record?.({
        orgId: store.orgId,
        storeEnvId: store.id,
        type: 'evidence_snapshot.created',
        data: { id, platformProductId: productId, kid: key.kid!, alg, issuedAt: iso(now)! }
      })
      return { id, jws, kid: key.kid!, alg, issuer, jwksUri: `${issuer}/jwks`, issuedAt: iso(now)!, evidence: signed }
    }
  }
}
export type EvidenceService = ReturnType<typeof evidenceService>
export type Evidence = Awaited<ReturnType<EvidenceService['get']>>
