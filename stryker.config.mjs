/**
 * Mutation testing (`npm run test:mutation`, scripts/mutation.ts, docs/testing.md) of the code that guards authority,
 * money, delivery and data. StrykerJS's tap runner runs each test file in a node process of its own, on the
 * suite's JavaScript copy of the sandbox (scripts/compile-tests.ts, built once: every mutant is in it, switched on by
 * an environment variable), and records which files reach which mutant, so a mutant runs only the files that reach it.
 */

/** The files mutated, each with the test files that guard it (the union is what the tap runner runs). */
export const GUARDED = {
  'src/lib/permissions.ts': [
    'test/auth/permissions.test.ts',
    'test/auth/resource-areas.test.ts',
    'test/auth/roles.test.ts',
    'test/auth/scopes.test.ts',
    'test/api-keys/escalation.test.ts',
    'test/oauth/management.test.ts',
    'test/partners/partners.test.ts'
  ],
  'src/pipeline/resolve-store.ts': [
    'test/pipeline/resolve-store.test.ts',
    'test/auth/store-header.test.ts',
    'test/auth/instances.test.ts',
    'test/partners/partners.test.ts'
  ],
  'src/pipeline/check-access.ts': [
    'test/pipeline/check-access.test.ts',
    'test/auth/subscription.test.ts',
    'test/auth/plan.test.ts',
    'test/features/features.test.ts',
    'test/partners/partners.test.ts'
  ],
  'src/pipeline/audit-partner.ts': ['test/pipeline/audit-partner.test.ts', 'test/partners/partners.test.ts'],
  'src/lib/bulk.ts': ['test/products/bulk-upsert.test.ts', 'test/content/gallery-locking.test.ts', 'test/orders/bulk-item-paths.test.ts'],
  'src/modules/delivery/sign.ts': [
    'test/webhooks/delivery.test.ts',
    'test/webhooks/outbound-webhooks.test.ts',
    'test/webhooks/standard-webhooks.test.ts'
  ],
  'src/modules/delivery/outcome.ts': ['test/webhooks/delivery.test.ts', 'test/connectors/hooks.test.ts'],
  'src/modules/events/event-access.ts': [
    'test/webhooks/event-visibility.test.ts',
    'test/events/events.test.ts',
    'test/events/event-access.test.ts'
  ],
  'src/modules/affiliates/commission.ts': ['test/affiliates/affiliates.test.ts'],
  'oauth/consent.service.ts': ['test/oauth/consent-choices.test.ts', 'test/oauth/client-ownership.test.ts']
}

/**
 * Files whose guards differ on MySQL + Redis, run there: bulk.ts's locking reads, FORCE INDEX, isolation level and
 * deadlock retries; the pipeline's store and feature overrides kept under a Redis marker.
 */
export const ON_MYSQL = ['src/lib/bulk.ts', 'src/pipeline/resolve-store.ts', 'src/pipeline/check-access.ts']

const COMPILED = '.tap/js'

/** The compiled copies of the test files guarding `files`. */
export function testFilesOf (files) {
  return [...new Set(files.flatMap((file) => GUARDED[file]))].sort().map((file) => `${COMPILED}/${file.replace(/\.ts$/, '.js')}`)
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: Object.keys(GUARDED),
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  // Each mutant's test files are the ones that reached it in the first (unmutated) run.
  coverageAnalysis: 'perTest',
  buildCommand: `node --import tsx scripts/mutation.ts --compile ${COMPILED}`,
  tap: {
    testFiles: testFilesOf(Object.keys(GUARDED)),
    // scripts/mutation-process.cjs removes the process's copy of the SQLite template when it ends.
    nodeArgs: ['-r', '{{hookFile}}', '-r', './scripts/mutation-process.cjs', '{{testFile}}'],
    forceBail: true
  },
  // Test processes wait on SQLite and HTTP receivers a good part of their time: two keep both cores busy.
  concurrency: 2,
  // A shared machine slows some processes several times over: a mutant is only a timeout well past its usual time.
  timeoutFactor: 3,
  timeoutMS: 20_000,
  incremental: true,
  incrementalFile: 'reports/mutation/all/incremental.json',
  ignorePatterns: ['.tap', 'data', 'dist', 'reports', 'bench/.data', 'test/.artifacts', 'connectors/zapier/node_modules', '.stryker-tmp'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/all/index.html' },
  jsonReporter: { fileName: 'reports/mutation/all/mutation.json' },
  thresholds: { high: 90, low: 90, break: null },
  tempDirName: '.stryker-tmp'
}
