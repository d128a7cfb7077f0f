/**
 * Issue 47, point 9: the SDK is a JavaScript package with type declarations. Built by its own `build` script's
 * tsconfig into a throw-away node_modules/@evidence-hub/sdk (with its package.json, as an install lays it out), it is
 * imported by name from plain node, with no TypeScript loader, and a TypeScript consumer type-checks against its
 * declarations through the package's `exports`.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { build } from '../../test/helper.js'
import { makeTenant } from '../../test/factories.js'

const run = promisify(execFile)
const SDK = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const TSC = require.resolve('typescript/bin/tsc')

/**
 * tsc on the generated types takes seconds, and minutes on a loaded machine: more than the 120 s tap gives a file
 * run alone (the suite's processes get 1,200).
 */
if (Number(process.env.TAP_TIMEOUT ?? 30) < 600) t.setTimeout(600_000)

let built: Promise<string> | undefined

/**
 * A directory holding node_modules/@evidence-hub/sdk built from the sources, and the SDK's dependency beside it;
 * built once for the file's tests (tsc takes seconds on the generated types), removed when they end.
 */
function installed (): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eh-sdk-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const pkg = join(dir, 'node_modules', '@evidence-hub', 'sdk')
    mkdirSync(pkg, { recursive: true })
    // --noCheck: the same output in two thirds of the time; `npm run typecheck` checks the sources.
    await run(process.execPath, [TSC, '-p', join(SDK, 'tsconfig.json'), '--outDir', join(pkg, 'dist'), '--noCheck'])
    copyFileSync(join(SDK, 'package.json'), join(pkg, 'package.json'))
    const dependencies = Object.keys(JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')).dependencies)
    for (const name of [...dependencies, '@types/node']) {
      const at = join(dir, 'node_modules', name)
      mkdirSync(dirname(at), { recursive: true })
      symlinkSync(dirname(require.resolve(`${name}/package.json`)), at)
    }
    return dir
  })()
  return built
}

/** Node with nothing added: no --import, no NODE_OPTIONS from the test runner. */
function plainNode (cwd: string, script: string, env: Record<string, string> = {}) {
  const { NODE_OPTIONS: _, ...rest } = process.env
  return run(process.execPath, ['--input-type=module', '-e', script], { cwd, env: { ...rest, ...env } })
}

t.test('the built package imports by name in plain node and calls the service', async (t) => {
  const dir = await installed()
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const tenant = await makeTenant(app)
  const script = `
    const sdk = await import('@evidence-hub/sdk')
    const api = sdk.createClient({ baseUrl: process.env.URL, apiKey: process.env.KEY, storeEnvId: process.env.STORE })
    const stores = sdk.unwrap(await api.GET('/v1/account/stores', {}))
    console.log(JSON.stringify({ exports: Object.keys(sdk).sort(), stores: stores.data.map((s) => s.id) }))
  `
  const { stdout } = await plainNode(dir, script, {
    URL: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    KEY: tenant.key,
    STORE: tenant.storeId
  })
  const out = JSON.parse(stdout) as { exports: string[], stores: string[] }
  t.same(out.stores, [tenant.storeId])
  for (const name of ['createClient', 'paginate', 'pages', 'eventCursor', 'pollEvents', 'unwrap', 'ApiError', 'verifyWebhook']) {
    t.ok(out.exports.includes(name), name)
  }
})

t.test('a TypeScript consumer type-checks against the package\'s declarations, which refuse a wrong type', async (t) => {
  const dir = await installed()
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node']
    },
    files: ['consumer.ts']
  }))
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  // A wrong type must be an error (else the unused @ts-expect-error is one): the declarations are the generated ones.
  writeFileSync(join(dir, 'consumer.ts'), `
    import { createClient, paginate, unwrap, type RetryOptions } from '@evidence-hub/sdk'
    const retry: RetryOptions = { maxAttempts: 3 }
    const api = createClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'svc_x', retry })
    const review = unwrap(await api.GET('/v1/reviews/{id}', { params: { path: { id: 'rev_1' } } }))
    const rating: number = review.rating
    // @ts-expect-error: title is a string or null
    const title: number = review.title
    for await (const item of paginate(api, '/v1/reviews', { limit: 100 })) console.log(item.id, rating, title)
    export {}
  `)
  const checked = await run(process.execPath, [TSC, '-p', dir]).then(() => 'no errors', (err: { stdout: string }) => err.stdout)
  t.equal(checked, 'no errors')
})
