// Part of `npm run build`: the files the compiled service reads beside its modules, at the same relative paths as
// from the sources (admin views, styles and scripts; the changelog and version the MCP server serves).
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'

// Each module's admin pages keep their views in its own admin/views.
const views = readdirSync('src/modules').map((module) => `src/modules/${module}/admin/views`).filter((path) => existsSync(path))
for (
  const path of [...views, 'src/modules/admin/views', 'src/modules/admin/assets', 'docs/changelog.md', 'src/modules/storefront/widget.js']
) {
  cpSync(path, `dist/${path}`, { recursive: true })
}
const { name, version, type } = JSON.parse(readFileSync('package.json', 'utf8'))
writeFileSync('dist/package.json', JSON.stringify({ name, version, type, private: true }, null, 2) + '\n')
