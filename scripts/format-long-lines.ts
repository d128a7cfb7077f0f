// `npm run format`: re-wraps the lines longer than MAX_LINE and leaves every other line as it is.
//
// dprint (configured in dprint.json to write the project's neostandard style) formats a copy of each file that has a long
// line; of its changes, only those inside the smallest statement, class or type member, object property or array element
// that holds a long line are kept, so the rest of the file keeps its hand-made layout (single-line interfaces, quote
// choices, blank lines) and the diff only re-wraps. Comment lines that are still too long are then word-wrapped at
// COMMENT_WIDTH with their `//` or ` * ` prefix. Whatever still exceeds MAX_LINE (a long string, URL or regular expression
// that cannot be broken without changing its value) is left for `@stylistic/max-len`'s ignore options in eslint.config.js.
//
// Usage: npm run format [-- --dry-run] [-- files...]   (default: the files dprint.json includes); eslint --fix then runs on
// the files it changed.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { diffArrays } from 'diff'
import ts from 'typescript'

export const MAX_LINE = 140
const COMMENT_WIDTH = 120

const tooLong = (line: string) => line.length > MAX_LINE
const kindOf = (file: string) => file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS

/** The line ranges [start, end] (0-based, inclusive) of the smallest syntactic unit around each over-long line. */
export function longLineUnits (file: string, text: string): Array<[number, number]> {
  const lines = text.split('\n')
  const long = lines.flatMap((line, i) => tooLong(line) ? [i] : [])
  if (long.length === 0) return []
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kindOf(file))
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line
  const lineStarts = source.getLineStarts()
  const units: Array<[number, number]> = []
  for (const i of long) {
    const from = lineStarts[i]! + (lines[i]!.length - lines[i]!.trimStart().length)
    const to = lineStarts[i]! + lines[i]!.length
    let best: ts.Node | undefined
    const visit = (node: ts.Node) => {
      if (node.getStart(source) > from || node.end < to) return
      if (isUnit(node)) best = node
      ts.forEachChild(node, visit)
    }
    ts.forEachChild(source, visit)
    units.push(best ? [lineOf(best.getStart(source)), lineOf(best.end)] : [i, i])
  }
  return units
}

function isUnit (node: ts.Node): boolean {
  if (node.kind >= ts.SyntaxKind.FirstStatement && node.kind <= ts.SyntaxKind.LastStatement) return true
  if (ts.isClassElement(node) || ts.isTypeElement(node) || ts.isObjectLiteralElementLike(node) || ts.isEnumMember(node)) return true
  if (node.parent && ts.isArrayLiteralExpression(node.parent)) return true
  return ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || ts.isModuleDeclaration(node) ||
    ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isExportAssignment(node)
}

/** The original text with only those of dprint's changes that touch a unit holding an over-long line. */
export function keepLongLineChanges (file: string, original: string, formatted: string): string {
  if (original === formatted) return original
  const units = longLineUnits(file, original)
  if (units.length === 0) return original
  const touches = (start: number, end: number) => units.some(([a, b]) => start <= b && end >= a)
  const parts = diffArrays(original.split('\n'), formatted.split('\n'))
  const out: string[] = []
  let line = 0 // position in the original
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]!
    if (!part.added && !part.removed) {
      out.push(...part.value)
      line += part.value.length
      continue
    }
    // A change is a run of removed and/or added lines between two unchanged runs.
    let removed: string[] = []
    let added: string[] = []
    while (k < parts.length && (parts[k]!.added || parts[k]!.removed)) {
      if (parts[k]!.removed) removed = removed.concat(parts[k]!.value)
      else added = added.concat(parts[k]!.value)
      k++
    }
    k--
    const start = line
    const end = removed.length > 0 ? line + removed.length - 1 : line - 1
    // dprint may break a template literal inside `${…}`, which leaves the value alone but reads badly: such a change is left out.
    const breaksTemplate = added.some((l) => l.trimEnd().endsWith('${'))
    const keep = !breaksTemplate && (removed.length > 0 ? touches(start, end) : touches(line - 1, line))
    out.push(...(keep ? added : removed))
    line += removed.length
  }
  return out.join('\n')
}

/** Word-wraps whole-line `//` comments and block-comment lines longer than MAX_LINE, keeping their prefix. */
export function wrapLongComments (file: string, text: string): string {
  const lines = text.split('\n')
  if (!lines.some(tooLong)) return text
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kindOf(file))
  const comments = new Map<number, ts.CommentRange>()
  const collect = (node: ts.Node) => {
    for (const c of ts.getLeadingCommentRanges(text, node.pos) ?? []) comments.set(c.pos, c)
    for (const c of ts.getTrailingCommentRanges(text, node.end) ?? []) comments.set(c.pos, c)
    ts.forEachChild(node, collect)
  }
  collect(source)
  for (const c of ts.getLeadingCommentRanges(text, source.endOfFileToken.pos) ?? []) comments.set(c.pos, c)
  const starts = source.getLineStarts()
  const inComment = (i: number): ts.CommentRange | undefined => {
    const from = starts[i]! + (lines[i]!.length - lines[i]!.trimStart().length)
    const to = starts[i]! + lines[i]!.length
    for (const c of comments.values()) if (c.pos <= from && c.end >= to) return c
    return undefined
  }
  /** A `//` comment that ends line i after code, when the code alone fits. */
  const trailing = (i: number): ts.CommentRange | undefined => {
    const end = starts[i]! + lines[i]!.length
    for (const c of comments.values()) {
      if (c.kind !== ts.SyntaxKind.SingleLineCommentTrivia || c.end !== end || c.pos <= starts[i]!) continue
      const code = text.slice(starts[i]!, c.pos)
      if (code.trim() !== '' && code.trimEnd().length <= MAX_LINE) return c
    }
    return undefined
  }
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const after = tooLong(line) ? trailing(i) : undefined
    if (after) {
      // The comment moves onto its own lines above the code; a directive for this line becomes one for the next.
      const indent = /^\s*/.exec(line)![0]
      const body = text.slice(after.pos + 2, after.end).trim().replace(/^eslint-disable-line\b/, 'eslint-disable-next-line')
      out.push(...wrapWords(body, `${indent}// `, `${indent}// `), text.slice(starts[i]!, after.pos).trimEnd())
      continue
    }
    const comment = tooLong(line) ? inComment(i) : undefined
    const match = comment && (comment.kind === ts.SyntaxKind.SingleLineCommentTrivia
      ? /^(\s*\/\/ ?)(.*)$/.exec(line)
      : /\*\/\s*$/.test(line) ? null : /^(\s*\* ?|\s*\/\*\*? ?)(.*)$/.exec(line))
    const oneLine = comment && !match ? /^(\s*)(\/\*\*?) (.*?)\s*\*\/\s*$/.exec(line) : null
    if (oneLine) {
      // A one-line block comment becomes an opening line, wrapped ` * ` lines and a closing line.
      const [, indent, open, body] = oneLine
      out.push(indent + open!, ...wrapWords(body!, `${indent} * `, `${indent} * `), `${indent} */`)
      continue
    }
    if (!comment || !match) {
      out.push(line)
      continue
    }
    const first = match[1]!
    out.push(...wrapWords(match[2]!, first, first.replace(/\/\*\*?/, (m) => ' '.repeat(m.length - 1) + '*')))
  }
  return out.join('\n')
}

/** `text`'s words in lines of at most COMMENT_WIDTH characters (a longer word stands alone), the first after `first`. */
function wrapWords (text: string, first: string, rest: string): string[] {
  const out: string[] = []
  let prefix = first
  let current = first
  for (const word of text.split(/ +/)) {
    if (current.length > prefix.length && (current + word).length > COMMENT_WIDTH) {
      out.push(current.trimEnd())
      prefix = rest
      current = rest
    }
    current += word + ' '
  }
  out.push(current.trimEnd())
  return out
}

function main () {
  const args = process.argv.slice(2)
  const dryRun = args.includes('--dry-run')
  const given = args.filter((a) => !a.startsWith('--'))
  const all = given.length > 0
    ? given
    : execFileSync('npx', ['dprint', 'output-file-paths'], { encoding: 'utf8' }).split('\n').filter(Boolean)
  const originals = new Map<string, string>()
  for (const file of all) {
    const text = readFileSync(file, 'utf8')
    if (text.split('\n').some(tooLong)) originals.set(file, text)
  }
  if (originals.size === 0) return
  const files = [...originals.keys()]
  // dprint writes its full formatting in place; each file is then rewritten from the original plus the kept changes.
  try {
    execFileSync('npx', ['dprint', 'fmt', '--', ...files], { stdio: ['ignore', 'ignore', 'inherit'] })
  } catch (err) {
    for (const [file, text] of originals) writeFileSync(file, text)
    throw err
  }
  const changed: string[] = []
  for (const [file, original] of originals) {
    const formatted = readFileSync(file, 'utf8')
    const result = wrapLongComments(file, keepLongLineChanges(file, original, formatted))
    if (result !== original) changed.push(file)
    writeFileSync(file, dryRun ? original : result)
    if (dryRun && result !== original) console.log(file)
  }
  // Where dprint and neostandard disagree inside a kept change (the indent of an object in a ternary branch, `for (;;)`,
  // braces dprint adds to an `else` whose `if` it left alone), eslint's own fixes settle it.
  if (!dryRun && changed.length > 0) {
    try {
      execFileSync('npx', ['eslint', '--fix', '--', ...changed], { stdio: ['ignore', 'inherit', 'inherit'] })
    } catch {
      console.error('eslint --fix left problems: see above')
      process.exitCode = 1
    }
  }
  const left = files.flatMap((file) => readFileSync(file, 'utf8').split('\n').flatMap((l, i) => tooLong(l) ? [`${file}:${i + 1}`] : []))
  console.error(
    `${dryRun ? 'would re-wrap' : 're-wrapped'} ${changed.length} file(s); ${left.length} line(s) still over ${MAX_LINE} characters`
  )
}

if (import.meta.url === `file://${process.argv[1]}`) main()
