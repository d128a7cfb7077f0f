#!/usr/bin/env node
// `npx evidence-hub <command> [--json]`: the operator command line (src/cli). Unlike `npm run cli`, nothing but the
// command's own output reaches stdout, so `--json | jq` works. TypeScript is loaded through tsx's API.
import { register } from 'tsx/esm/api'

register()
await import('../src/cli/index.ts')
