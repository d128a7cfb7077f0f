import { Type } from '@sinclair/typebox'

export const getChangelog = {
  tags: ['changelog'],
  summary: 'The versioning policy, current deprecations and the changelog of contract-visible changes, newest first',
  description: 'The same source as the page at `/docs/versioning`. No credentials needed.',
  response: {
    200: Type.Object({
      version: Type.Literal('v1'),
      policy: Type.String({ description: 'The versioning policy (docs/changelog.md in the repository), as Markdown' }),
      pageUrl: Type.String({ description: 'The HTML page of the same content (the `Link rel="deprecation"` target)' }),
      deprecations: Type.Array(Type.Object({
        surface: Type.String(),
        deprecatedOn: Type.String({ description: 'YYYY-MM-DD' }),
        sunsetOn: Type.String({ description: 'YYYY-MM-DD: removed from this day on' }),
        instead: Type.String()
      })),
      changes: Type.Array(Type.Object({
        period: Type.String({ description: 'Month, e.g. `Oct 2026`' }),
        kind: Type.Union([
          Type.Literal('added'),
          Type.Literal('changed'),
          Type.Literal('fixed'),
          Type.Literal('deprecated'),
          Type.Literal('removed'),
          Type.Literal('security')
        ]),
        description: Type.String({ description: 'Markdown' })
      }))
    })
  }
}
