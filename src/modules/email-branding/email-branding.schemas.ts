import { Type } from '@sinclair/typebox'
import { authErrors, DateTime } from '../../schemas.js'
import { TemplateKeyField } from '../email/index.js'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

export const Branding = Type.Object({
  fromName: Nullable(Type.String({ description: 'The sender name before the service\'s address; null: the store\'s name' })),
  logoUploadId: Nullable(Type.String()),
  logoUrl: Nullable(Type.String()),
  primaryColor: Nullable(Type.String()),
  footerText: Nullable(Type.String()),
  updatedAt: Nullable(DateTime)
})

export const getBranding = {
  tags: ['email-branding'],
  summary: 'How this store\'s mails look',
  response: { 200: Branding, ...authErrors }
}

export const putBranding = {
  tags: ['email-branding'],
  summary: 'Replace the branding of this store\'s mails (an omitted field is cleared)',
  description: 'The logo is an image uploaded through `POST /v1/uploads/image`. Appends `email_branding.updated`.',
  body: Type.Object({
    fromName: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 100,
          pattern: '^[^\\u0000-\\u001f\\u007f"<>]*$',
          description: 'No quotes, angle brackets or control characters'
        })
      )
    ),
    logoUploadId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 40 }))),
    primaryColor: Type.Optional(Nullable(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'A hex colour, e.g. `#2f5d50`' }))),
    footerText: Type.Optional(
      Nullable(Type.String({ maxLength: 1000, pattern: '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$' }))
    )
  }, {
    additionalProperties: false,
    examples: [{ fromName: 'Linen & Co', primaryColor: '#2f5d50', footerText: 'Linen & Co, 1 Market Street, Springfield' }]
  }),
  response: { 200: Branding, ...authErrors }
}

export const previewBranding = {
  tags: ['email-branding'],
  summary: 'A template rendered as the HTML a customer would get, with sample values',
  querystring: Type.Object({ templateKey: TemplateKeyField }),
  produces: ['text/html'],
  response: { 200: Type.String({ description: 'The HTML part of the mail' }), ...authErrors }
}
