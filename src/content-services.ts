import type { Knex } from 'knex'
import type { Clock } from './lib/clock.js'
import type { EventLog } from './modules/events/index.js'
import type { ReviewsRepository } from './modules/reviews/index.js'
import type { ProductsService } from './modules/products/index.js'
import type { UploadsService } from './modules/uploads/index.js'
import { galleriesRepository, galleriesService, type OnEngagement, type OnLead, galleryVisitorsService } from './modules/galleries/index.js'
import { faqsRepository, faqsService } from './modules/faqs/index.js'
import { categoriesRepository, categoriesService } from './modules/categories/index.js'
import { webPagesRepository, webPagesService } from './modules/web-pages/index.js'
import { placementsRepository, placementsService } from './modules/placements/index.js'
import { storefrontService } from './modules/storefront/index.js'

interface Deps {
  db: Knex
  clock: Clock
  events: EventLog
  secretKey: string
  repos: { reviews: ReviewsRepository }
  products: ProductsService
  uploads: UploadsService
  /** The lead form's customer hook (docs/contract/resources.md#customers); the customers resource wires it. */
  onLead?: OnLead
  /** Counts favourites and leads in the storefront analytics (the analytics module's recordEngagement). */
  onEngagement?: OnEngagement
}

/**
 * The part of the composition root (services.ts) for issue 15's resources: each repository and service built
 * once, the cross-resource rules (a deleted category leaves FAQs and products; a placement needs its web page)
 * wired here rather than by the modules importing each other's internals.
 */
export function contentServices ({ db, clock, events, secretKey, repos, products, uploads, onLead, onEngagement }: Deps) {
  const repo = {
    galleries: galleriesRepository(db),
    faqs: faqsRepository(db),
    categories: categoriesRepository(db),
    webPages: webPagesRepository(db),
    placements: placementsRepository(db)
  }
  const categoryExists = async (storeId: string, id: string, trx: Knex) => Boolean(await repo.categories.find(storeId, id, trx))
  const faqs = faqsService({ db, repo: repo.faqs, events, clock, categoryExists })
  const categories = categoriesService({
    db,
    repo: repo.categories,
    events,
    clock,
    detach: async (trx, store, id) => {
      await faqs.uncategorise(trx, store, id)
      await products.uncategorise(trx, store, id)
    }
  })
  // The page's deletion calls placements, made just below: the hook reads it when a page is deleted, never before.
  const webPages = webPagesService({ db, repo: repo.webPages, events, clock, onDelete: (trx, store, id) => placements.leavePage(trx, store, id) })
  const galleryExists = async (storeId: string, id: string, trx: Knex) => Boolean(await repo.galleries.find(storeId, id, trx))
  const placements = placementsService({ db, repo: repo.placements, events, clock, pageExists: webPages.exists, pageByUrl: webPages.byUrl, galleryExists })
  const galleries = galleriesService({ db, repo: repo.galleries, events, clock, urlOf: uploads.urlOf, releaseUploads: uploads.release })
  const galleryVisitors = galleryVisitorsService({ db, repo: repo.galleries, galleries, clock, secretKey, storeImage: uploads.storeImage, attachUploads: uploads.attach, onLead, onEngagement, releaseUploads: uploads.release })
  const storefront = storefrontService({ reviews: repos.reviews })
  return { contentRepos: repo, galleries, galleryVisitors, faqs, categories, webPages, placements, storefront }
}
