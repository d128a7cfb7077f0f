// `npm run build` in connectors/n8n: the package as n8n loads it, under dist/. tsc compiles the nodes and credentials
// to CommonJS (with catalogue.json, which they import); the icons and each node's codex file (*.node.json) are
// copied beside them, as n8n's own build (n8n-node build) does.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
rmSync(join(root, 'dist'), { recursive: true, force: true })
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' })

function copyStatic (dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) copyStatic(path)
    else if (entry.name.endsWith('.svg') || entry.name.endsWith('.node.json')) {
      const to = join(root, 'dist', relative(root, path))
      mkdirSync(dirname(to), { recursive: true })
      cpSync(path, to)
    }
  }
}
copyStatic(join(root, 'icons'))
copyStatic(join(root, 'nodes'))
