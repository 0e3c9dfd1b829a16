/**
 * Where each worker's entry module is: electron/workers/<name>.ts, the one place entries live. From source
 * (tests, `tsx`), workers run their `.ts` file through the tsx loader; from the build, the bundled
 * `worker-<name>.js` beside this bundle (build/build.ts). Electron's utilityProcess always runs the bundle.
 * The host starts workers by name from here and never imports their entry code (eslint.config.mjs).
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type WorkerName = 'pty-host' | 'policy' | 'trainer' | 'probe' | 'eval' | 'audit';

const here = dirname(fileURLToPath(import.meta.url));
/** electron/workers, from electron/processes (source only: the build flattens both into dist/node). */
const entriesDir = join(here, '..', 'workers');
const fromSource = import.meta.url.endsWith('.ts');

export function workerEntry(name: WorkerName): { modulePath: string; execArgv: string[] } {
  if (fromSource) return { modulePath: join(entriesDir, `${name}.ts`), execArgv: ['--import', 'tsx'] };
  // Bundles sit in dist/node; code-split chunks (which may hold this module) in dist/node/chunks.
  const distNode = basename(here) === 'chunks' ? dirname(here) : here;
  const modulePath = join(distNode, `worker-${name}.js`);
  if (!existsSync(modulePath)) throw new Error(`worker bundle missing: ${modulePath} (run \`npm run build\`)`);
  return { modulePath, execArgv: [] };
}

/** Any module as a worker (tests use fixtures this way). */
export function moduleEntry(modulePath: string): { modulePath: string; execArgv: string[] } {
  return { modulePath, execArgv: modulePath.endsWith('.ts') ? ['--import', 'tsx'] : [] };
}
