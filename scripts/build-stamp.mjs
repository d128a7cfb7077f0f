// What `npm run build` (scripts/build.mjs) compiles and copies from, and whether dist/ is up to date with it: the
// build skips itself when it is, and bin/evidence-hub.js runs the compiled CLI only when it is (otherwise the
// sources, through tsx), so a checkout whose sources changed since its last build never runs the old code.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Written by the build once dist/ is complete; its mtime is the time the build started. */
export const STAMP = 'dist/.built'

export const INPUTS = [
  'src',
  'oauth',
  'migrations',
  'docs/changelog.md',
  'tsconfig.json',
  'scripts/tsconfig.build.json',
  'scripts/build.mjs',
  'scripts/build-stamp.mjs',
  'scripts/copy-assets.mjs',
  'package.json',
  'package-lock.json'
]

/**
 * Whether anything at `path` (a file, or a folder and everything in it) was changed at or after `time` (ms). A
 * folder's own mtime counts: it moves when an entry is added, removed or renamed (and so when an editor saves a file by
 * renaming a new copy over it).
 */
function changedSince (path, time) {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (!stat) return false
  if (stat.mtimeMs >= time) return true
  if (!stat.isDirectory()) return false
  return readdirSync(path).some((entry) => changedSince(join(path, entry), time))
}

/** True when dist/ under `root` (the repository) was built after the last change to everything the build reads. */
export function isBuilt (root = '.') {
  const stamp = statSync(join(root, STAMP), { throwIfNoEntry: false })
  return Boolean(stamp) && !INPUTS.some((input) => changedSince(join(root, input), stamp.mtimeMs))
}
