/**
 * Operator command line (docs/contract/operations.md#operator-command-line):
 * `npm run cli -- <command> [options] [--json]`. The commands and their output live in run.ts, so tests can run them
 * in-process.
 */
import { runCli } from './run.js'

process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr })
