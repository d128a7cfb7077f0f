// Preloaded (`node -r`) into each test process of `npm run test:mutation`: thousands of them each copy the SQLite
// template (test/helper.ts); the copy goes when the process ends, killed ones included (Stryker's hook turns
// SIGTERM into an exit).
const { rmSync } = require('node:fs')
const { sep } = require('node:path')

const template = process.env.EH_TEST_DATA_DIR
if (template && !process.env.EH_TEST_DATA_COPY) {
  process.on('exit', () => {
    const own = process.env.EH_TEST_DATA_DIR
    if (own && own.startsWith(`${template}${sep}process-`)) rmSync(own, { recursive: true, force: true })
  })
}
