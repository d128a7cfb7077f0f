#!/usr/bin/env node
// `npx evidence-hub <command> [--json]`: the operator command line (src/cli). Unlike `npm run cli`, nothing but the
// command's own output reaches stdout, so `--json | jq` works. It runs the compiled CLI (dist/, written by
// `npm run build`, which `npm install`, `npm start` and `npm run worker` run) when that build is newer than every file
// it reads (scripts/build-stamp.mjs); otherwise it says so on stderr and runs the sources through tsx, which costs
// seconds per run (compiling them on the fly) but never runs code older than the checkout.
import { fileURLToPath } from 'node:url'
import { isBuilt } from '../scripts/build-stamp.mjs'

if (isBuilt(fileURLToPath(new URL('..', import.meta.url)))) {
  await import('../dist/src/cli/index.js')
} else {
  process.stderr.write('note: dist/ is missing or older than the sources; running them through tsx (slower; `npm run build` to speed up)\n')
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/index.ts')
}
