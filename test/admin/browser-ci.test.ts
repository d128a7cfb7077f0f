import { spawnSync } from 'node:child_process'
import t from 'tap'

/** How a browser test file behaves without Chromium: skipped on a person's machine, failed under CI. */
function runWithoutChromium (ci: string | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env, FIXTURE_CI: ci }
  if (ci === undefined) delete env.FIXTURE_CI
  return spawnSync(process.execPath, ['--no-warnings', '--import', 'tsx', 'test/admin/fixtures/without-chromium.ts'], {
    env,
    encoding: 'utf8'
  })
}

t.test('without Chromium, a browser test file is skipped outside CI', async (t) => {
  const run = runWithoutChromium(undefined)
  t.equal(run.status, 0)
  t.match(run.stdout, /^1\.\.0 # browser tests skipped/m)
})

t.test('without Chromium, a browser test file fails under CI', async (t) => {
  const run = runWithoutChromium('true')
  t.not(run.status, 0)
  t.match(run.stdout, /^not ok 1 - \/usr\/bin\/chromium is absent under CI/m)
})
