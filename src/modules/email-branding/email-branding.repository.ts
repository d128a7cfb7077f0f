import type { Knex } from 'knex'

export interface BrandingRow {
  org_id: string
  store_env_id: string
  from_name: string | null
  logo_upload_id: string | null
  primary_color: string | null
  footer_text: string | null
  updated_at: number
}

export function emailBrandingRepository (db: Knex) {
  return {
    find (storeId: string, trx: Knex = db): Promise<BrandingRow | undefined> {
      return trx<BrandingRow>('email_branding').where({ store_env_id: storeId }).first()
    },

    async put (trx: Knex, row: BrandingRow) {
      await trx('email_branding').insert(row).onConflict('store_env_id').merge([
        'from_name',
        'logo_upload_id',
        'primary_color',
        'footer_text',
        'updated_at'
      ])
    }
  }
}
export type EmailBrandingRepository = ReturnType<typeof emailBrandingRepository>
