#!/usr/bin/env node
// The `t1lab` command: runs the built CLI (dist/node/cli.js). `npm ci` builds it (the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = fileURLToPath(new URL('../dist/node/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('t1lab: the CLI is not built yet; run `npm run build` in the T1 Lab folder.\n');
  process.exit(2);
}
await import(pathToFileURL(cli).href);
