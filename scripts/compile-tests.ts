/**
 * The suite's JavaScript copy of the tree (`npm test`, scripts/test.ts). Run under tap's runner, every test process
 * loaded TypeScript through three module hooks (tsx, tap's mock loader and its process-info loader), each on Node
 * 20's loader thread: ~3 s of CPU per process before its first test, and twice that in a fresh clone, where tsx's
 * cache is empty. esbuild (the transform tsx itself uses) turns the tree's TypeScript into JavaScript once, in about
 * half a second, and the test processes run that with no hook at all.
 *
 * `out` mirrors the repository: each `.ts` file becomes a `.js` file at the same place, and every other file (and
 * each `.ts` file too, for what reads one as text) is a symbolic link to the original, so that paths a module builds
 * from `import.meta.url` (templates, fixtures, the changelog, package.json) reach the real files. A folder without
 * TypeScript is one link. Migrations are the exception: knex would list a linked `.ts` beside its `.js` as a second
 * migration.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { build } from 'esbuild'

// .stryker-tmp and reports: what `npm run test:mutation` leaves (its sandboxes hold a mutated copy of the tree).
const LEFT_OUT = new Set(['.git', '.tap', 'dist', 'node_modules', '.stryker-tmp', 'reports'])

function holdsTypeScript (dir: string): boolean {
  return readdirSync(dir, { withFileTypes: true })
    .some((entry) =>
      entry.name !== 'node_modules' && (entry.isDirectory() ? holdsTypeScript(join(dir, entry.name)) : entry.name.endsWith('.ts'))
    )
}

/**
 * Whether a file is CommonJS, as Node and tsc (NodeNext) decide: its nearest package.json does not say
 * `"type": "module"`. The root package is ESM; the n8n node package (connectors/n8n) is CommonJS, as n8n loads it.
 */
function isCommonJs (file: string, root: string, known = new Map<string, boolean>()): boolean {
  const dir = dirname(file)
  let answer = known.get(dir)
  if (answer === undefined) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest)) answer = (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: string }).type !== 'module'
    else answer = dir !== root && dir !== dirname(dir) && isCommonJs(dir, root, known)
    known.set(dir, answer)
  }
  return answer
}

export async function compileTests (root: string, out: string): Promise<void> {
  rmSync(out, { recursive: true, force: true })
  const sources: string[] = []
  const mirror = (dir: string) => {
    const into = join(out, relative(root, dir))
    mkdirSync(into, { recursive: true })
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (dir === root && LEFT_OUT.has(entry.name)) continue
      if (entry.isDirectory() && entry.name !== 'node_modules' && holdsTypeScript(path)) {
        mirror(path)
        continue
      }
      const typescript = entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')
      if (typescript) sources.push(path)
      if (!typescript || relative(root, dir) !== 'migrations') symlinkSync(path, join(into, entry.name))
    }
  }
  mirror(root)
  const known = new Map<string, boolean>()
  const commonJs = sources.filter((file) => isCommonJs(file, root, known))
  const modules = sources.filter((file) => !commonJs.includes(file))
  const options = {
    outdir: out,
    outbase: root,
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'warning'
  } as const
  await Promise.all([
    build({ ...options, entryPoints: modules, format: 'esm' }),
    commonJs.length > 0 ? build({ ...options, entryPoints: commonJs, format: 'cjs' }) : undefined
  ])
}
