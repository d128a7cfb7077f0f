import t from 'tap'
import { readFileSync } from 'node:fs'
import { onlyJson, runCli } from './run-cli.js'

t.test('npm run migrate names a command that exists and reports the schema up to date', async (t) => {
  const script = JSON.parse(readFileSync('package.json', 'utf8')).scripts.migrate as string
  const args = script.split(' ').slice(script.split(' ').indexOf('bin/evidence-hub.js') + 1)
  const res = await runCli([...args, '--json'])
  t.equal(res.code, 0, res.stderr)
  t.match(onlyJson(res.stdout), { version: /^\d{14}$/, pending: 0 })
})
