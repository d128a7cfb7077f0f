/**
 * Operator command line (docs/contract/operations.md#operator-command-line):
 * `npx evidence-hub <command> [options] [--json]` (bin/evidence-hub.js runs this file, compiled when dist/ is up to
 * date). The commands and their output live in run.ts, so tests can run them in-process.
 */
import { runCli } from './run.js'

process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr })
