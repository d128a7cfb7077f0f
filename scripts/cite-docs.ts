/**
 * Comments used to cite two documents that live outside the repository ("decisions.md section 8", "service-api.md
 * 5.7"), so a reader of the repository alone could not follow them. Their rules are now in docs/contract/; this
 * rewrites each such citation in a comment to the page and heading that hold the rule.
 *
 *   node --import tsx scripts/cite-docs.ts [--root DIR] [--dry-run]   rewrite (or, dry, print what would change)
 *   node --import tsx scripts/cite-docs.ts [--root DIR] --check       exit 1 listing comments (and docs) that still
 *                                                                    cite them, or a rule whose heading is gone
 *
 * Only comments are rewritten. A citation inside a string (a test's name, a schema's description, which reaches the
 * OpenAPI document and the generated SDK) is listed, to be changed by hand.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const C = 'docs/contract/'

/** How a section is named in a rule: `d8` (decisions.md 8), `s5.7` (service-api.md 5.7), `d15:email` (a part of one). */
interface Rule { key: string, to: string, when?: RegExp, path?: RegExp }

/**
 * The mapping. For each citation the first rule whose key matches (`s5.7` falls back to `s5`), whose `path` matches
 * the file and whose `when` matches the sentence around the citation decides where it now points.
 */
const RULES: Rule[] = [
  { key: 'd1', to: `${C}api-conventions.md#roots` },

  { key: 'd2', path: /src\/features\.ts|modules\/billing\//, to: `${C}plans-and-limits.md#plans-and-subscription` },
  { key: 'd2', when: /escalat|more authority|no later than|up to their own|never above/i, to: `${C}tenancy-and-roles.md#no-escalation` },
  { key: 'd2', when: /Role, then scopes|first refusal/, to: `${C}tenancy-and-roles.md#authentication` },
  { key: 'd2', when: /org-level|leaves nothing behind/i, to: `${C}tenancy-and-roles.md#org-level-authority` },
  { key: 'd2', to: `${C}tenancy-and-roles.md#roles` },

  { key: 'd3', when: /RateLimit/, to: `${C}api-conventions.md#rate-limit-headers` },
  { key: 'd3', when: /laps/, to: `${C}plans-and-limits.md#plans-and-subscription` },
  { key: 'd3', to: `${C}api-conventions.md#errors` },

  { key: 'd4', to: `${C}api-conventions.md#pagination` },

  { key: 'd5', when: /stores it may use|whatever its scopes/, to: `${C}tenancy-and-roles.md#organizations-and-stores` },
  { key: 'd5', to: `${C}api-conventions.md#bulk-upserts` },

  { key: 'd6', when: /last four|address/, to: `${C}catalog.md#reviewer-email` },
  { key: 'd6', to: `${C}catalog.md#reviews` },

  { key: 'd7', when: /bytes|upload/i, to: `${C}storefront.md#uploads` },
  { key: 'd7', when: /per store and IP|spam/, to: `${C}plans-and-limits.md#storefront-limits` },
  { key: 'd7', to: `${C}storefront.md#origins` },

  { key: 'd8', when: /trigger catalogue|item a subscription/, to: `${C}event-visibility.md#events` },
  { key: 'd8', when: /creator may read|subscription carries/, to: `${C}event-visibility.md#subscriptions` },
  { key: 'd8', when: /sees of events|read scope/, to: `${C}event-visibility.md#who-sees-which-events` },
  { key: 'd8', when: /signature|signed|HMAC/i, to: `${C}webhooks-and-delivery.md#signatures` },
  { key: 'd8', when: /retr(y|ies)/i, to: `${C}webhooks-and-delivery.md#retries` },
  { key: 'd8', path: /src\/delivery\/|migrations\/.*webhooks/, to: `${C}webhooks-and-delivery.md#delivery` },
  { key: 'd8', when: /outbox|fans? out/, to: `${C}webhooks-and-delivery.md#delivery` },
  { key: 'd8', when: /event log|\blog\b|GET \/events/i, to: `${C}event-visibility.md#the-event-log` },
  { key: 'd8', to: `${C}event-visibility.md#events` },

  { key: 'd9', path: /modules\/events\//, to: `${C}event-visibility.md#who-sees-which-events` },
  { key: 'd9', when: /trigger catalogue|polling returns/, to: `${C}connectors.md#triggers-and-polling` },
  { key: 'd9', when: /except hooks/, to: `${C}connectors.md` },
  { key: 'd9', when: /scope/, to: `${C}connectors.md#connector-scopes` },
  { key: 'd9', when: /hook|pipeline/i, to: `${C}connectors.md#rest-hooks` },
  { key: 'd9', to: `${C}connectors.md#triggers-and-polling` },

  { key: 'd10', path: /src\/cli\//, to: `${C}oauth.md#registering-clients` },
  { key: 'd10', when: /OpenID Connect provider|shared storage|mounted/, to: `${C}oauth.md#provider-storage-and-keys` },
  {
    key: 'd10',
    when: /registered|client an organization|client is for|offered to every|its members only/,
    to: `${C}oauth.md#client-ownership`
  },
  { key: 'd10', when: /teammate|member/i, to: `${C}oauth.md#grants` },
  { key: 'd10', when: /refresh|offline_access|until revoked/, to: `${C}oauth.md#refresh-tokens` },
  { key: 'd10', when: /consent|already chosen/i, to: `${C}oauth.md#consent` },
  { key: 'd10', when: /Bearer/, to: `${C}oauth.md#token-endpoint` },
  { key: 'd10', when: /grant|connection/i, to: `${C}oauth.md#grants` },
  { key: 'd10', to: `${C}oauth.md#flows-and-endpoints` },

  { key: 'd11', to: `${C}tenancy-and-roles.md#audit-log` },
  { key: 'd12', to: `${C}operations.md#health` },
  { key: 'd13', to: `${C}operations.md#operator-command-line` },
  { key: 'd14', to: `${C}operations.md#configuration` },

  // decisions.md section 15 held every resource of the second wave: named parts first, then the rules all share,
  // then the resource by the file's own folder.
  { key: 'd15:email', path: /email-sequences/, to: `${C}resources.md#email-sequences` },
  { key: 'd15:email', path: /email-suppressions/, to: `${C}resources.md#email-suppressions` },
  { key: 'd15:email', path: /sending-domain/, to: `${C}resources.md#sending-domain` },
  { key: 'd15:email', path: /src\/delivery\//, to: `${C}webhooks-and-delivery.md#email-providers` },
  { key: 'd15:email', to: `${C}resources.md#email` },
  { key: 'd15:storefront', when: /upload|video/i, to: `${C}storefront.md#uploads` },
  { key: 'd15:storefront', when: /visitors do/, to: `${C}storefront.md#storefront-writes` },
  { key: 'd15:storefront', to: `${C}storefront.md#widget-reads` },
  { key: 'd15:platform-sync', to: `${C}resources.md#platform-sync` },
  { key: 'd15:webhook-operations', to: `${C}webhooks-and-delivery.md#webhook-operations` },
  { key: 'd15:content', to: `${C}resources.md#content` },
  { key: 'd15:support', to: `${C}resources.md#support` },
  { key: 'd15:orgs', to: `${C}resources.md#organization` },
  { key: 'd15:features', to: `${C}plans-and-limits.md#features` },
  { key: 'd15:billing', to: `${C}plans-and-limits.md#billing` },
  { key: 'd15:sending-domain', to: `${C}resources.md#sending-domain` },
  {
    key: 'd15',
    when: /every change appends|appends `|event .*commit|its event|resource-singular/,
    to: `${C}event-visibility.md#every-change-appends-an-event`
  },
  { key: 'd15', when: /share \(galleries|content resources/, to: `${C}resources.md#content` },
  { key: 'd15', when: /updatedSince/, to: `${C}api-conventions.md#incremental-sync` },
  { key: 'd15', when: /1970|cannot serve|Column sizes/, to: `${C}api-conventions.md#dates-and-sizes` },
  { key: 'd15', when: /erasure|lead becomes or updates|lead form's customer/i, to: `${C}resources.md#customers` },
  { key: 'd15', when: /partner|client's|clients'|client organization|a client/i, to: `${C}tenancy-and-roles.md#partner-access` },
  { key: 'd15', when: /redeliver|replay|Recovering a receiver/i, to: `${C}webhooks-and-delivery.md#webhook-operations` },
  { key: 'd15', when: /each endpoint its own budget/, to: `${C}plans-and-limits.md#storefront-limits` },
  { key: 'd15', when: /feature overrides/, to: `${C}plans-and-limits.md#features` },
  { key: 'd15', when: /Platform (sync|API credentials)/, to: `${C}resources.md#platform-sync` },
  { key: 'd15', path: /\/content\b|content\.ts|_content/, to: `${C}resources.md#content` },
  { key: 'd15', path: /uploads\/videos/, to: `${C}storefront.md#uploads` },
  { key: 'd15', path: /galleries/, to: `${C}resources.md#galleries` },
  { key: 'd15', path: /faqs/, to: `${C}resources.md#faqs` },
  { key: 'd15', path: /categories/, to: `${C}resources.md#categories` },
  { key: 'd15', path: /web-pages/, to: `${C}resources.md#web-pages` },
  { key: 'd15', path: /placements/, to: `${C}resources.md#placements` },
  { key: 'd15', path: /customers/, to: `${C}resources.md#customers` },
  { key: 'd15', path: /loyalty/, to: `${C}resources.md#loyalty` },
  { key: 'd15', path: /review.incentives/, to: `${C}resources.md#review-incentives` },
  { key: 'd15', path: /affiliates/, to: `${C}resources.md#affiliates` },
  { key: 'd15', path: /email-sequences/, to: `${C}resources.md#email-sequences` },
  { key: 'd15', path: /email-suppressions/, to: `${C}resources.md#email-suppressions` },
  { key: 'd15', path: /modules\/features\//, to: `${C}plans-and-limits.md#features` },
  { key: 'd15', path: /modules\/billing\//, to: `${C}plans-and-limits.md#billing` },
  { key: 'd15', path: /analytics/, to: `${C}resources.md#analytics` },
  { key: 'd15', path: /storefront|widget/, to: `${C}storefront.md#widget-reads` },
  { key: 'd15', path: /deprecation/, to: 'docs/changelog.md#versioning-policy' },
  { key: 'd15', path: /modules\/admin\/webhooks|outbound-webhooks|src\/delivery\//, to: `${C}webhooks-and-delivery.md#webhook-operations` },
  { key: 'd15', path: /modules\/webhooks\//, to: `${C}resources.md#platform-sync` },
  { key: 'd15', path: /src\/features\.ts/, to: `${C}plans-and-limits.md#features` },
  { key: 'd15', to: `${C}resources.md#common-rules` },

  { key: 'd16', when: /Streamable HTTP|stateless/i, to: `${C}agents.md#transport-and-credentials` },
  { key: 'd16', when: /tool|pipeline|unchanged/i, to: `${C}agents.md#tools` },
  { key: 'd16', to: `${C}agents.md#transport-and-credentials` },

  { key: 's', when: /float|money/i, to: `${C}api-conventions.md#money` },
  { key: 's', to: `${C}api-conventions.md#pagination` },
  { key: 's2:rule-3', to: `${C}tenancy-and-roles.md#api-keys` },
  { key: 's2', when: /address|email|masked/i, to: `${C}catalog.md#reviewer-email` },
  { key: 's2', when: /API key/, to: `${C}tenancy-and-roles.md#api-keys` },
  { key: 's2', to: `${C}tenancy-and-roles.md#scopes` },
  { key: 's3', to: `${C}catalog.md#review-requests` },
  { key: 's4', path: /outbound-webhooks/, to: `${C}event-visibility.md#the-event-log` },
  { key: 's4', to: `${C}api-conventions.md#roots` },
  { key: 's5.1', to: `${C}tenancy-and-roles.md#organizations-and-stores` },
  { key: 's5.10', to: `${C}tenancy-and-roles.md#api-keys` },
  { key: 's5', to: `${C}tenancy-and-roles.md#authentication` },
  { key: 's6.4', to: `${C}event-visibility.md#events` },
  { key: 's6', path: /migrations\/.*_events/, to: `${C}event-visibility.md#events` },
  { key: 's6', to: `${C}webhooks-and-delivery.md#signatures` },
  { key: 's8', when: /storefront/i, to: `${C}plans-and-limits.md#storefront-limits` },
  { key: 's8', when: /500|commission/i, to: `${C}resources.md#affiliates` },
  { key: 's8', to: `${C}plans-and-limits.md#request-limits` },
  { key: 's9.9', to: 'docs/changelog.md#deprecations' },
  { key: 's9', to: 'docs/changelog.md#versioning-policy' }
]

/** Spaces, or a line break and the next line's comment marker: a citation may be wrapped. */
const GAP = String.raw`(?:[ \t]+|[ \t]*\r?\n[ \t]*(?:\*(?!\/)|\/\/)?[ \t]*)`

/**
 * Whole phrases, rewritten before the citations in them: several citations that now point at one heading, and
 * section numbers a comment gives without naming the document again.
 */
const PHRASES: Array<[string, string]> = [
  [
    'service-api.md sections 4 and 6, decisions.md section 8',
    `${C}webhooks-and-delivery.md#outbound-webhooks, ${C}event-visibility.md#the-event-log`
  ],
  ['service-api.md section 6, decisions.md section 8', `${C}event-visibility.md#events`],
  ['service-api.md section 9.7, decisions.md section 15', 'docs/changelog.md#versioning-policy'],
  ['decisions.md section 15; service-api.md section 8', `${C}resources.md#affiliates`],
  ['service-api.md section 5, decisions.md sections 2 and 15', `${C}tenancy-and-roles.md#scopes`],
  ['passed the origin check (section 7)', `passed the origin check (${C}plans-and-limits.md#storefront-limits)`],
  ['role and scopes (5.2-5.5)', `role and scopes (${C}tenancy-and-roles.md#authentication)`],
  ['subscription and plan (section 3)', `subscription and plan (${C}plans-and-limits.md#plans-and-subscription)`],
  ['the scope rules of section 8', `the scope rules of ${C}event-visibility.md#who-sees-which-events`],
  ['read the event\'s resource (section 8)', `read the event's resource (${C}event-visibility.md#subscriptions)`]
]
const PHRASE_PATTERNS = PHRASES.map(([phrase, to]) =>
  [new RegExp(phrase.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(GAP)), to] as const
)

const NUM = String.raw`\d+(?:\.\d+)?`
const LIST = `${NUM}(?:(?:,${GAP}(?:and${GAP})?|${GAP}and${GAP})${NUM})*`
const CITATION = new RegExp(String.raw`\b(decisions|service-api)\.md(?:${GAP}(?:sections?${GAP})?(${LIST})\b)?`, 'g')
const CITES = /decisions\.md|service-api\.md/

/** The part of a section a comment names right after its number; consumed, since the heading now says it. */
const QUALIFIERS: Array<[RegExp, string]> = [
  [/"Email"/, 'email'], [/"Storefront"/, 'storefront'], [/"Platform\s*(?:\*\s*)?sync"/, 'platform-sync'],
  [/"Webhook operations"/, 'webhook-operations'], [/"Content"/, 'content'], [/`support`/, 'support'], [/`orgs`/, 'orgs'],
  [/`features`/, 'features'], [/`billing`/, 'billing'], [/sending-domain\b/, 'sending-domain'], [/rule 3\b/, 'rule-3']
].map(([re, name]) => [new RegExp(`,?${GAP}${(re as RegExp).source}`, 'y'), name as string])

interface Comment { start: number, end: number }

/** Every comment of a TypeScript or JavaScript file: the trivia before and after each token. */
function commentsOf (file: string, text: string): Comment[] {
  const kind = /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind)
  const found = new Map<number, Comment>()
  const note = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) found.set(r.pos, { start: r.pos, end: r.end })
  }
  const visit = (node: ts.Node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return
    const children = node.getChildren(source)
    if (children.length === 0) {
      note(ts.getLeadingCommentRanges(text, node.pos))
      note(ts.getTrailingCommentRanges(text, node.pos))
    }
    children.forEach(visit)
  }
  visit(source)
  return [...found.values()].sort((a, b) => a.start - b.start)
}

/**
 * The sentence around a citation, with comment markers taken out: what a rule's `when` is tested on. A sentence that
 * is little more than the citation ("… Runs inside the removal's transaction. decisions.md section 10.") gives way
 * to the whole comment.
 */
function sentenceAround (comment: string, start: number, end: number): string {
  const plain = (text: string) => text.replace(/\n\s*(\*(?!\/)|\/\/)?/g, ' ')
  const before = comment.slice(0, start)
  const from = Math.max(before.search(/[.!?]\s(?!.*[.!?]\s)/s) + 1, 0)
  const after = comment.slice(end).search(/[.!?](\s|$)/)
  const sentence = comment.slice(from, after < 0 ? undefined : end + after)
  const words = (comment.slice(from, start) + comment.slice(end, after < 0 ? undefined : end + after)).match(/[a-z]{3,}/gi) ?? []
  return plain(words.length < 3 ? comment : sentence)
}

function keysOf (doc: string, numbers: string | undefined, qualifier: string | null): string[] {
  const prefix = doc === 'decisions' ? 'd' : 's'
  if (!numbers) return [prefix]
  const list = numbers.split(/[^\d.]+/).filter(Boolean)
  // A part named after a list belongs to its last number ("sections 2, 3 and 15 `billing`").
  return list.map((n, i) => qualifier && i === list.length - 1 ? `${prefix}${n}:${qualifier}` : `${prefix}${n}`)
}

function targetOf (key: string, file: string, sentence: string): string | null {
  const candidates = [key, key.replace(/:.*/, ''), key.replace(/\.\d+$/, '')]
  for (const k of new Set(candidates)) {
    const rule = RULES.find((r) => r.key === k && (!r.path || r.path.test(file)) && (!r.when || r.when.test(sentence)))
    if (rule) return rule.to
  }
  return null
}

function joined (targets: string[]): string {
  const list = [...new Set(targets)]
  return list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`
}

interface Rewrite { file: string, line: number, from: string, to: string | null }

/** The citations in one comment and what each becomes (null: no rule). */
function rewritesIn (file: string, comment: string): Array<{ start: number, end: number, to: string | null }> {
  const out: Array<{ start: number, end: number, to: string | null }> = []
  for (const [phrase, to] of PHRASE_PATTERNS) {
    const match = phrase.exec(comment)
    if (match) out.push({ start: match.index, end: match.index + match[0].length, to })
  }
  for (const match of comment.matchAll(CITATION)) {
    if (out.some((r) => match.index >= r.start && match.index < r.end)) continue
    let end = match.index + match[0].length
    let qualifier: string | null = null
    for (const [re, name] of QUALIFIERS) {
      re.lastIndex = end
      const q = match[2] ? re.exec(comment) : null
      if (q) { qualifier = name; end += q[0].length; break }
    }
    const sentence = sentenceAround(comment, match.index, end)
    const targets = keysOf(match[1], match[2], qualifier).map((key) => targetOf(key, file, sentence))
    out.push({ start: match.index, end, to: targets.includes(null) ? null : joined(targets as string[]) })
  }
  return out.sort((a, b) => a.start - b.start)
}

/** Marks where a rewrite went, so the lines it made too long are re-wrapped (and the mark taken out). */
const MARK = '\uE000'
/** The width the repository's comments are wrapped at. */
const WIDTH = 120

/** A line of a comment paragraph: ` * text` inside a block comment, or a whole-line `// text`. */
const PROSE = /^(\s*(?:\*|\/\/) )(?![-|@]|```|\d+\.|\s)(.*\S)$/

/** Words to wrap, an inline code span (`GET /features`) kept whole. */
function wordsOf (text: string): string[] {
  const words: string[] = []
  for (const word of text.split(' ')) {
    const last = words.length - 1
    if (last >= 0 && (words[last].split('`').length - 1) % 2 === 1) words[last] += ' ' + word
    else words.push(word)
  }
  return words
}

function wrap (words: string[], prefix: string): string[] {
  const lines: string[] = []
  for (const word of words) {
    const last = lines.length - 1
    if (last >= 0 && (lines[last] + ' ' + word).length <= WIDTH) lines[last] += ' ' + word
    else lines.push(prefix + word)
  }
  return lines
}

/**
 * Re-wraps the paragraphs a longer citation pushed past the width: the prose lines around it with the same prefix,
 * up to a blank comment line, a list item, a table or code. A one-line block comment too long becomes several lines.
 */
function rewrapped (text: string): string {
  const lines = text.split('\n')
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (!line.includes(MARK) || line.replaceAll(MARK, '').length <= WIDTH) { out.push(line); continue }
    const plain = line.replaceAll(MARK, '')
    const single = /^(\s*)(\/\*\*?) (.*) \*\/$/.exec(plain)
    if (single) {
      out.push(`${single[1]}${single[2]}`, ...wrap(wordsOf(single[3]), `${single[1]} * `), `${single[1]} */`)
      continue
    }
    const at = PROSE.exec(plain)
    if (!at) { out.push(line); continue }
    // The paragraph: prose lines with this prefix before (already in `out`) and after this one.
    let start = out.length
    while (start > 0 && PROSE.exec(out[start - 1])?.[1] === at[1]) start--
    let end = i + 1
    while (end < lines.length && PROSE.exec(lines[end].replaceAll(MARK, ''))?.[1] === at[1] && !lines[end].includes('*/')) end++
    const paragraph = [...out.splice(start), ...lines.slice(i, end)].map((l) => PROSE.exec(l.replaceAll(MARK, ''))![2])
    out.push(...wrap(wordsOf(paragraph.join(' ')), at[1]))
    i = end - 1
  }
  return out.join('\n').replaceAll(MARK, '')
}

const ROOTS = ['src', 'oauth', 'connectors', 'scripts', 'test', 'migrations', 'sdk', 'bench', 'bin', 'examples', 'knexfile.ts']
/** Written by `npm run sdk` from the OpenAPI document: a citation there comes from a schema's description. */
const GENERATED = new Set(['sdk/src/schema.ts'])
const SELF = 'scripts/cite-docs.ts'

function filesUnder (root: string, path: string, pattern: RegExp): string[] {
  const full = join(root, path)
  if (!existsSync(full)) return []
  if (!statSync(full).isDirectory()) return pattern.test(path) ? [path] : []
  return readdirSync(full).flatMap((name) =>
    ['node_modules', 'dist', '.tap', '.git'].includes(name) ? [] : filesUnder(root, join(path, name), pattern)
  )
}

function lineOf (text: string, at: number): number {
  return text.slice(0, at).split('\n').length
}

/** Rewrites (or, with `write` false, only finds) the citations of one file; answers them and the ones in strings. */
function processFile (root: string, file: string, write: boolean): { rewrites: Rewrite[], left: Rewrite[], inStrings: number[] } {
  const text = readFileSync(join(root, file), 'utf8')
  const rewrites: Rewrite[] = []
  const left: Rewrite[] = []
  if (!CITES.test(text) && !PHRASE_PATTERNS.some(([phrase]) => phrase.test(text))) return { rewrites, left, inStrings: [] }
  const comments = commentsOf(file, text)
  const inComment = (at: number) => comments.some((c) => at >= c.start && at < c.end)
  const inStrings = [...text.matchAll(/decisions\.md|service-api\.md/g)].filter((m) => !inComment(m.index)).map((m) =>
    lineOf(text, m.index)
  )
  let out = text
  for (const c of [...comments].reverse()) {
    const comment = text.slice(c.start, c.end)
    for (const r of rewritesIn(file, comment).reverse()) {
      const rewrite = { file, line: lineOf(text, c.start + r.start), from: comment.slice(r.start, r.end), to: r.to }
      if (r.to === null) { left.push(rewrite); continue }
      rewrites.push(rewrite)
      out = out.slice(0, c.start + r.start) + MARK + r.to + out.slice(c.start + r.end)
    }
  }
  out = rewrapped(out)
  if (write && out !== text) writeFileSync(join(root, file), out)
  return { rewrites: rewrites.reverse(), left: left.reverse(), inStrings }
}

/** Rules whose page or heading does not exist (a heading renamed without its rule). */
function brokenTargets (root: string): string[] {
  const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')
  return [...new Set(RULES.map((r) => r.to).concat(PHRASES.map(([, to]) => /\(?(docs\/\S+?#[\w-]+)/.exec(to)![1])))].filter((to) => {
    const [path, anchor] = to.split('#')
    if (!existsSync(join(root, path))) return true
    if (anchor === undefined) return false
    const headings = readFileSync(join(root, path), 'utf8').replace(/```[\s\S]*?```/g, '').match(/^#+ .*$/gm) ?? []
    return !headings.some((h) => slug(h.replace(/^#+ /, '')) === anchor)
  })
}

function main () {
  const args = process.argv.slice(2)
  const rootAt = args.indexOf('--root')
  const root = resolve(rootAt >= 0 ? args[rootAt + 1] : join(dirname(fileURLToPath(import.meta.url)), '..'))
  const check = args.includes('--check')
  const dry = args.includes('--dry-run')
  const code = ROOTS.flatMap((r) => filesUnder(root, r, /\.(ts|mts|cts|js|mjs|cjs)$/)).filter((f) =>
    f !== SELF && !GENERATED.has(f) && !f.endsWith('.d.ts')
  )
  const results = code.map((file) => ({ file, ...processFile(root, file, !check && !dry) }))
  const rewrites = results.flatMap((r) => r.rewrites)
  const left = results.flatMap((r) => r.left)
  const strings = results.flatMap((r) => r.inStrings.map((line) => `${r.file}:${line}`))
  const generated = [...GENERATED].filter((f) => existsSync(join(root, f)) && CITES.test(readFileSync(join(root, f), 'utf8')))

  if (dry) { for (const r of rewrites) console.log(`${r.file}:${r.line}: ${r.from.replace(/\s+/g, ' ')} -> ${r.to}`) }
  if (strings.length) {
    console.log(`In strings, not comments (change by hand; a schema description also needs \`npm run sdk\`):\n  ${strings.join('\n  ')}`)
  }
  if (generated.length) console.log(`Generated, rewritten by \`npm run sdk\` once the source description changes: ${generated.join(', ')}`)

  if (check) {
    const prose = [...filesUnder(root, 'docs', /\.md$/), 'README.md'].filter((f) => existsSync(join(root, f)))
      .flatMap((f) => readFileSync(join(root, f), 'utf8').split('\n').flatMap((line, i) => CITES.test(line) ? [`${f}:${i + 1}`] : []))
    const broken = brokenTargets(root)
    const citing = [...rewrites, ...left].map((r) => `${r.file}:${r.line}: ${r.from.replace(/\s+/g, ' ')}`)
    for (const line of citing) console.log(`cites a document outside the repository: ${line}`)
    for (const line of prose) console.log(`docs cite a document outside the repository: ${line}`)
    for (const to of broken) console.log(`a rule points at a heading that does not exist: ${to}`)
    process.exitCode = citing.length || prose.length || broken.length ? 1 : 0
    return
  }
  for (const r of left) console.log(`no rule for: ${r.file}:${r.line}: ${r.from.replace(/\s+/g, ' ')}`)
  const mentions = rewrites.reduce((n, r) => n + (r.from.match(/decisions\.md|service-api\.md/g)?.length ?? 0), 0)
  console.log(`${rewrites.length} citations ${dry ? 'to rewrite' : 'rewritten'} in ${new Set(rewrites.map((r) => r.file)).size} files ` +
    `(${mentions} mentions of decisions.md or service-api.md, ${rewrites.length - rewrites.filter((r) => CITES.test(r.from)).length} bare section numbers); ${left.length} without a rule`)
  process.exitCode = left.length ? 1 : 0
}

main()
