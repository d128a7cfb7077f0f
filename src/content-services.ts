import type { Knex } from 'knex'
import type { Clock } from './lib/clock.js'
import type { DomainBus } from './lib/domain-events.js'
import type { EventLog } from './modules/events/index.js'
import type { ReviewsRepository } from './modules/reviews/index.js'
import type { UploadsService } from './modules/uploads/index.js'
import { galleriesRepository, galleriesService, galleryVisitorsService } from './modules/galleries/index.js'
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
  uploads: UploadsService
  bus: DomainBus
}

/**
 * The part of the composition root (services.ts) for issue 15's resources: each repository and service built
 * once. What one does when another changes (a deleted category leaves FAQs and products, a deleted page its
 * placements) is a domain event the reacting module subscribes to (src/lib/domain-events.ts).
 */
export function contentServices ({ db, clock, events, secretKey, repos, uploads, bus }: Deps) {
  const repo = {
    galleries: galleriesRepository(db),
    faqs: faqsRepository(db),
    categories: categoriesRepository(db),
    webPages: webPagesRepository(db),
    placements: placementsRepository(db)
  }
  const categoryExists = async (storeId: string, id: string, trx: Knex) => Boolean(await repo.categories.find(storeId, id, trx))
  const faqs = faqsService({ db, repo: repo.faqs, events, clock, categoryExists })
  const categories = categoriesService({ db, repo: repo.categories, events, clock, bus })
  const webPages = webPagesService({ db, repo: repo.webPages, events, clock, bus })
  const galleryExists = async (storeId: string, id: string, trx: Knex) => Boolean(await repo.galleries.find(storeId, id, trx))
  const placements = placementsService({ db, repo: repo.placements, events, clock, pageExists: webPages.exists, pageByUrl: webPages.byUrl, galleryExists })
  const galleries = galleriesService({ db, repo: repo.galleries, events, clock, urlOf: uploads.urlOf, releaseUploads: uploads.release })
  const galleryVisitors = galleryVisitorsService({ db, repo: repo.galleries, galleries, clock, secretKey, storeImage: uploads.storeImage, attachUploads: uploads.attach, bus, releaseUploads: uploads.release })
  const storefront = storefrontService({ reviews: repos.reviews })
  return { contentRepos: repo, galleries, galleryVisitors, faqs, categories, webPages, placements, storefront }
}
