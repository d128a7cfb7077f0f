/**
 * The small Markdown subset docs/changelog.md is written in, as HTML: headings, paragraphs, numbered and bullet
 * lists, tables, `code`, **bold** and [links](…). Everything is escaped first, so the source cannot inject markup.
 */
export function escapeHtml (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

export function inline (text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\[([^\]]+)\]\(((?:https?:\/\/|\/|[\w.-]+\.md)[^)\s]*)\)/g, '<a href="$2">$1</a>')
}

/** The cells of a table row `| a | b |`. */
export function cells (line: string): string[] {
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((cell) => cell.trim())
}

function slug (text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
}

export function markdownToHtml (source: string): string {
  const out: string[] = []
  const lines = source.split('\n')
  for (let i = 0; i < lines.length;) {
    const line = lines[i]
    const heading = /^(#{1,4}) (.*)$/.exec(line)
    if (heading) {
      const level = heading[1].length
      out.push(`<h${level} id="${slug(heading[2])}">${inline(heading[2])}</h${level}>`)
      i++
    } else if (line.startsWith('|')) {
      const rows: string[] = []
      while (i < lines.length && lines[i].startsWith('|')) rows.push(lines[i++])
      const [head, , ...body] = rows
      out.push('<table><thead><tr>' + cells(head).map((c) => `<th>${inline(c)}</th>`).join('') + '</tr></thead><tbody>' +
        body.map((row) => '<tr>' + cells(row).map((c) => `<td>${inline(c)}</td>`).join('') + '</tr>').join('') + '</tbody></table>')
    } else if (/^(\d+\.|-) /.test(line)) {
      const ordered = /^\d+\./.test(line)
      const items: string[] = []
      while (i < lines.length && /^(\d+\.|-) /.test(lines[i])) items.push(lines[i++].replace(/^(\d+\.|-) /, ''))
      const tag = ordered ? 'ol' : 'ul'
      out.push(`<${tag}>` + items.map((item) => `<li>${inline(item)}</li>`).join('') + `</${tag}>`)
    } else if (line.trim() === '') {
      i++
    } else {
      const paragraph: string[] = []
      while (i < lines.length && lines[i].trim() !== '' && !/^(#|\||\d+\. |- )/.test(lines[i])) paragraph.push(lines[i++])
      out.push(`<p>${inline(paragraph.join(' '))}</p>`)
    }
  }
  return out.join('\n')
}
