// `npm run build` (and so `npm start`): compiles with tsc and copies the files the compiled service reads beside its
// modules, unless nothing it reads changed since the last build (dist/.built), which spares a start ~3 s of tsc.
// `npm run build -- --force` always builds. tsc emits without checking types (--noCheck: the same files, in a third
// of the time: 3 s instead of 8 on a 2-core machine); `npm run typecheck` and CI check them.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const STAMP = 'dist/.built'
const INPUTS = [
  'src',
  'oauth',
  'migrations',
  'docs/changelog.md',
  'tsconfig.json',
  'scripts/tsconfig.build.json',
  'scripts/build.mjs',
  'scripts/copy-assets.mjs',
  'package.json',
  'package-lock.json'
]

function newest (path) {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((max, entry) => Math.max(max, newest(join(path, entry))), stat.mtimeMs)
}

const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0
if (process.argv.includes('--force') || INPUTS.some((input) => newest(input) >= built)) {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'scripts/tsconfig.build.json', '--noCheck'], {
    stdio: 'inherit'
  })
  execFileSync(process.execPath, ['scripts/copy-assets.mjs'], { stdio: 'inherit' })
  writeFileSync(STAMP, `${new Date().toISOString()}\n`)
}
