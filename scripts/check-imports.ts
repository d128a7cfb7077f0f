/**
 * `npm run lint` runs this after eslint and `madge --circular` (which finds cycles between files): no cycle between
 * the folders of src/ and oauth/ (CONVENTIONS.md: dependencies point one way), a layering rule madge does not
 * express, and no import of another module's internals (a module's index.ts is its public face).
 * `--graph` prints the folder-level edges.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const ROOTS = ['src', 'oauth', 'connectors', 'test', 'bench', 'scripts']
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g

function filesUnder (dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'node_modules' || name === 'zapier' || name.startsWith('.')) return []
    if (statSync(path).isDirectory()) return filesUnder(path)
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

function resolveImport (from: string, spec: string): string | null {
  const target = resolve(dirname(from), spec).replace(/\.js$/, '.ts')
  return existsSync(target) ? target : null
}

/** Edges of the graph; `import type` counts too: a type cycle between folders is still a layering cycle. */
function importGraph (files: string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>()
  for (const file of files) {
    const edges = new Set<string>()
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolveImport(file, match[1] ?? match[2])
      if (target && target !== file) edges.add(target)
    }
    graph.set(file, edges)
  }
  return graph
}

/** Tarjan's strongly connected components: every component of more than one node is a cycle. */
function cycles (graph: Map<string, Set<string>>): string[][] {
  let index = 0
  const stack: string[] = []
  const onStack = new Set<string>()
  const indices = new Map<string, number>()
  const low = new Map<string, number>()
  const found: string[][] = []
  function visit (node: string) {
    indices.set(node, index)
    low.set(node, index++)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!))
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1) found.push(component)
    }
  }
  for (const node of graph.keys()) if (!indices.has(node)) visit(node)
  return found
}

/**
 * Files directly in src/ (errors, config, app, services, …) sit at different levels, so each is its own node. A
 * module (src/modules/<name>/ with its sub-folders) is one node: how it lays out its own files is its own affair.
 */
function folderOf (file: string): string {
  const folder = relative(root, dirname(file))
  const module = moduleOf(file)
  if (module) return `src/modules/${module}`
  return folder === 'src' ? relative(root, file) : folder
}

function moduleOf (file: string): string | null {
  return /^src\/modules\/([^/]+)\//.exec(relative(root, file))?.[1] ?? null
}

/** An import of another module's file other than its index.ts, from the program (tests may reach inside). */
function internalImports (graph: Map<string, Set<string>>): string[] {
  const found: string[] = []
  for (const [file, targets] of graph) {
    if (!/^(src|oauth)\//.test(relative(root, file))) continue
    for (const target of targets) {
      const module = moduleOf(target)
      if (!module || module === moduleOf(file)) continue
      if (relative(root, target) !== `src/modules/${module}/index.ts`) {
        found.push(`${relative(root, file)} imports ${relative(root, target)}: import it from src/modules/${module}/index.ts`)
      }
    }
  }
  return found
}

function folderGraph (graph: Map<string, Set<string>>): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>()
  for (const [file, targets] of graph) {
    const from = folderOf(file)
    const edges = folders.get(from) ?? new Set<string>()
    for (const target of targets) {
      const to = folderOf(target)
      if (to !== from) edges.add(to)
    }
    folders.set(from, edges)
  }
  return folders
}

const files = ROOTS.flatMap((dir) => filesUnder(join(root, dir)))
const graph = importGraph(files)
// Layering is a property of the program: test and bench helpers may share folders both ways, files may not cycle.
const folders = folderGraph(new Map([...graph].filter(([file]) => /^(src|oauth)\//.test(relative(root, file)))))
if (process.argv.includes('--graph')) {
  for (const [from, targets] of [...folders].sort()) if (targets.size) console.log(`${from} -> ${[...targets].sort().join(', ')}`)
}
const problems = [
  ...cycles(folders).map((c) => `folder cycle: ${c.join(' <-> ')}`),
  ...internalImports(graph)
]
for (const problem of problems) console.error(problem)
if (problems.length) process.exit(1)
