import { readFileSync } from 'node:fs'
import { cells, escapeHtml, markdownToHtml } from '../../lib/markdown.js'
import { once } from '../../lib/once.js'

/**
 * docs/changelog.md is the one source of the versioning page (`/docs/versioning`), of `GET /v1/changelog` and of the
 * agent server's changelog resource (docs/changelog.md#versioning-policy). The build copies it beside the compiled
 * code.
 */
export const CHANGELOG_FILE = new URL('../../../docs/changelog.md', import.meta.url)

export const CHANGE_KINDS = ['added', 'changed', 'fixed', 'deprecated', 'removed', 'security'] as const
export type ChangeKind = typeof CHANGE_KINDS[number]

export interface Change { period: string, kind: ChangeKind, description: string }
export interface Deprecation { surface: string, deprecatedOn: string, sunsetOn: string, instead: string }

/** The lines of one `## ` section, without its heading. */
function section (markdown: string, title: string): string[] {
  const lines = markdown.split('\n')
  const start = lines.findIndex((line) => line === `## ${title}`)
  if (start < 0) throw new Error(`docs/changelog.md has no "## ${title}" section`)
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '))
  return lines.slice(start + 1, end < 0 ? undefined : end)
}

/** The body rows of the first table in `lines`. */
function tableRows (lines: string[]): string[][] {
  return lines.filter((line) => line.startsWith('|')).slice(2).map(cells)
}

/** "Changed: …" is a label, dropped from the description; "Added v2 …" reads as a sentence and stays whole. */
function kindOf (text: string): { kind: ChangeKind, description: string } {
  const match = /^(Added|Changed|Fixed|Deprecated|Removed|Security)\b(:\s*)?/.exec(text)
  if (!match) return { kind: 'added', description: text }
  return { kind: match[1].toLowerCase() as ChangeKind, description: match[2] ? text.slice(match[0].length) : text }
}

export function parseChangelog (markdown: string) {
  const policy = section(markdown, 'Versioning policy').join('\n').trim()
  const deprecations: Deprecation[] = tableRows(section(markdown, 'Deprecations'))
    .map(([surface, deprecatedOn, sunsetOn, instead]) => ({ surface, deprecatedOn, sunsetOn, instead }))
  const changes: Change[] = tableRows(section(markdown, 'Changelog')).map(([period, text]) => ({ period, ...kindOf(text) }))
  return { version: 'v1' as const, policy, deprecations, changes }
}

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2328}' +
  'table{border-collapse:collapse;width:100%}th,td{border:1px solid #d0d7de;padding:.4rem .6rem;text-align:left;vertical-align:top}' +
  'code{background:#f6f8fa;padding:0 .2rem;border-radius:3px}'

export function renderPage (markdown: string): string {
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml('API versioning and changelog')}</title><style>${STYLE}</style></head><body><main>\n` +
    markdownToHtml(markdown) + '\n</main></body></html>\n'
}

/** Read once per process: the file ships with the build and does not change while it runs. */
export const changelogSource = once(() => readFileSync(CHANGELOG_FILE, 'utf8'))
export const changelogJson = once(() => parseChangelog(changelogSource()))
export const versioningPage = once(() => renderPage(changelogSource()))
