// `npm run build` (and so `npm start`): compiles with tsc and copies the files the compiled service reads beside its
// modules, unless nothing it reads changed since the last build (scripts/build-stamp.mjs), which spares a start ~3 s
// of tsc. `npm run build -- --force` always builds. tsc emits without checking types (--noCheck: the same files, in a
// third of the time: 3 s instead of 8 on a 2-core machine); `npm run typecheck` and CI check them.
import { execFileSync } from 'node:child_process'
import { utimesSync, writeFileSync } from 'node:fs'
import { isBuilt, STAMP } from './build-stamp.mjs'

if (process.argv.includes('--force') || !isBuilt()) {
  // The stamp carries the time the build started: a source saved while tsc ran is newer, and so built next time.
  const started = new Date()
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'scripts/tsconfig.build.json', '--noCheck'], {
    stdio: 'inherit'
  })
  execFileSync(process.execPath, ['scripts/copy-assets.mjs'], { stdio: 'inherit' })
  writeFileSync(STAMP, `${started.toISOString()}\n`)
  utimesSync(STAMP, started, started)
}
