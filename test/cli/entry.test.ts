import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import t from 'tap'
import { INPUTS, isBuilt, STAMP } from '../../scripts/build-stamp.mjs'
import { runCli, spawnCli } from './run-cli.js'

const BIN = ['bin/evidence-hub.js']

t.test('--help prints the usage on stdout and exits 0', async (t) => {
  const res = await spawnCli(['--help'], { entry: BIN })
  t.equal(res.code, 0, res.stderr)
  t.match(res.stdout, /^Usage: npx evidence-hub <command>/)
  t.match(res.stdout, /org list/)
  t.notMatch(res.stderr, /Usage/)
})

t.test('help and no arguments print the same usage on stdout and exit 0', async (t) => {
  const help = await runCli(['--help'])
  for (const args of [['help'], [], ['-h']]) {
    const res = await runCli(args)
    t.equal(res.code, 0, args.join(' '))
    t.equal(res.stdout, help.stdout, args.join(' '))
    t.equal(res.stderr, '', args.join(' '))
  }
})

t.test('a command followed by --help prints that command\'s usage on stdout, exits 0 and runs nothing', async (t) => {
  const res = await runCli(['store', 'create', '--help'], { DATABASE_URL: 'mysql://nobody@127.0.0.1:1/none' })
  t.equal(res.code, 0, res.stderr)
  t.equal(res.stdout, 'Usage: npx evidence-hub store create --org ID --name NAME [--plan free|growth|pro] [--origin URL]...\n')
  t.equal(res.stderr, '', 'no database named, none reached')
})

t.test('the CLI process: an unknown command prints the usage on stderr, nothing on stdout, and exits non-zero', async (t) => {
  const res = await spawnCli(['frobnicate'], { entry: BIN })
  t.not(res.code, 0)
  t.equal(res.stdout, '')
  t.match(res.stderr, /^unknown command: frobnicate\n\nUsage: npx evidence-hub <command>/)
})

/** A module hook that refuses to resolve tsx: a process started with it fails if anything imports tsx. */
const NO_TSX = 'data:text/javascript,' + encodeURIComponent(`
import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(
  'export async function resolve (specifier, context, next) {' +
  '  if (/^tsx(\\\\/|$)/.test(specifier)) throw new Error("tsx was imported");' +
  '  return next(specifier, context) }'))
`)

t.test('with dist/ built, npx evidence-hub runs the compiled CLI without loading tsx', async (t) => {
  // A no-op when dist/ is up to date (as after `npm install`); otherwise the build `npm start` would run.
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'ignore' })
  t.ok(isBuilt(), 'dist/ is up to date')
  const help = await spawnCli(['--help'], { entry: ['--import', NO_TSX, ...BIN] })
  t.equal(help.code, 0, help.stderr)
  t.match(help.stdout, /^Usage: npx evidence-hub/)
  const listed = await spawnCli(['org', 'list', '--json'], { entry: ['--import', NO_TSX, ...BIN] })
  t.equal(listed.code, 0, listed.stderr)
  t.match(JSON.parse(listed.stdout), { organizations: Array })
  t.notMatch(listed.stderr, /dist\/ is missing or older/)
})

// npx runs a bin it finds in node_modules/.bin at once; a bin declared by the root package itself sends it through a
// read of the whole dependency tree first (seconds), so the command is a workspace (bin/package.json) that npm links.
t.test('npx evidence-hub runs the command npm linked into node_modules/.bin, the usage alone on stdout', async (t) => {
  t.equal(realpathSync('node_modules/.bin/evidence-hub'), realpathSync('bin/evidence-hub.js'))
  // npm's npx beside this node, or the one on the PATH (the Node 24 run's node comes without npm)
  const npx = [dirname(process.execPath), ...(process.env.PATH ?? '').split(delimiter)].map((dir) => join(dir, 'npx')).find(existsSync)
  if (!npx) throw new Error('npx is not on the PATH')
  // --no: never fetched from the registry; --: what follows is the command's own, --help included
  const res = await spawnCli(['--no', '--', 'evidence-hub', '--help'], { entry: [npx] })
  t.equal(res.code, 0, res.stderr)
  t.match(res.stdout, /^Usage: npx evidence-hub <command>/)
})

t.test('the hook refuses tsx, so the test above would see the sources run through it', async (t) => {
  const res = await spawnCli([], { entry: ['--import', NO_TSX, '--import', 'tsx', '-e', '0'] })
  t.not(res.code, 0)
  t.match(res.stderr, /tsx was imported/)
})

t.test('dist/ counts as built only while nothing the build reads has changed since it started', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'eh-build-stamp-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const at = (seconds: number) => new Date(Date.parse('2026-11-01T00:00:00Z') + seconds * 1000)
  const touch = (path: string, seconds: number) => utimesSync(join(root, path), at(seconds), at(seconds))
  mkdirSync(join(root, 'src/modules/orders'), { recursive: true })
  mkdirSync(join(root, 'dist'))
  writeFileSync(join(root, 'src/modules/orders/orders.service.ts'), '')
  writeFileSync(join(root, 'package.json'), '{}')
  for (const path of ['src/modules/orders/orders.service.ts', 'src/modules/orders', 'src/modules', 'src', 'package.json']) touch(path, 0)
  t.equal(isBuilt(root), false, 'never built')
  writeFileSync(join(root, STAMP), '')
  touch(STAMP, 10)
  t.equal(isBuilt(root), true, 'built after every change')
  touch('src/modules/orders/orders.service.ts', 20)
  t.equal(isBuilt(root), false, 'a file deep in src edited after the build')
  touch(STAMP, 30)
  writeFileSync(join(root, 'src/modules/orders/new.ts'), '')
  touch('src/modules/orders/new.ts', 0)
  touch('src/modules/orders', 40)
  t.equal(isBuilt(root), false, 'a file added (or removed, or renamed) after the build: its folder changed')
  touch(STAMP, 50)
  touch('package.json', 50)
  t.equal(isBuilt(root), false, 'a change at the very time the build started')
  touch(STAMP, 60)
  renameSync(join(root, 'src/modules/orders/new.ts'), join(root, 'src/modules/orders/renamed.ts'))
  t.equal(isBuilt(root), false, 'a rename, now')
  t.ok(INPUTS.includes('src') && INPUTS.includes('migrations') && INPUTS.includes('oauth'))
})
