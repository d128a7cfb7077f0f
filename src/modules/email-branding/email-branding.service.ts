import type { Knex } from 'knex'
import { iso, type Clock } from '../../lib/clock.js'
import type { EventLog } from '../events/index.js'
import type { StoreEnv } from '../../types.js'
import type { UploadsService } from '../uploads/index.js'
import type { Branding } from '../email/index.js'
import type { BrandingRow, EmailBrandingRepository } from './email-branding.repository.js'

interface Deps { db: Knex, repo: EmailBrandingRepository, uploads: UploadsService, events: EventLog, clock: Clock }

export interface BrandingInput {
  fromName?: string | null
  logoUploadId?: string | null
  primaryColor?: string | null
  footerText?: string | null
}

/** How a store's mails look: the sender name, a logo (an image uploaded through /v1/uploads), a colour, a footer. */
export function emailBrandingService ({ db, repo, uploads, events, clock }: Deps) {
  function present (row: BrandingRow | undefined) {
    return {
      fromName: row?.from_name ?? null,
      logoUploadId: row?.logo_upload_id ?? null,
      logoUrl: row?.logo_upload_id ? uploads.urlOf(row.logo_upload_id) : null,
      primaryColor: row?.primary_color ?? null,
      footerText: row?.footer_text ?? null,
      updatedAt: iso(row?.updated_at)
    }
  }

  return {
    async get (storeId: string) {
      return present(await repo.find(storeId))
    },

    /** What the mail layout needs (modules/email/layout.ts). */
    async brandingOf (storeId: string, trx: Knex = db): Promise<Branding> {
      const { fromName, logoUrl, primaryColor, footerText } = present(await repo.find(storeId, trx))
      return { fromName, logoUrl, primaryColor, footerText }
    },

    /** Replaces the branding: an omitted field is cleared. Appends `email_branding.updated`. */
    async put (store: StoreEnv, input: BrandingInput) {
      const logo = input.logoUploadId ?? null
      const row: BrandingRow = {
        org_id: store.orgId,
        store_env_id: store.id,
        from_name: input.fromName?.trim() || null,
        logo_upload_id: logo,
        primary_color: input.primaryColor?.toLowerCase() ?? null,
        footer_text: input.footerText ?? null,
        updated_at: clock()
      }
      const branding = present(row)
      await db.transaction(async (trx) => {
        // Held until the branding is written, and marked as used: the sweep of abandoned uploads leaves it.
        if (logo) await uploads.attach(trx, store.id, [logo], 'logoUploadId', 'branding')
        await repo.put(trx, row)
        // A logo replaced or cleared goes, unless something else shows it too.
        await uploads.release(trx, store.id, ['branding'], logo ? [logo] : [])
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'email_branding.updated', data: branding })
      })
      return branding
    }
  }
}
export type EmailBrandingService = ReturnType<typeof emailBrandingService>
