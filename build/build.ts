/**
 * Builds the app: the Node/Electron side with esbuild (ESM bundles in dist/node, the preload as CommonJS
 * because sandboxed preloads cannot be modules) and the renderer with Vite (dist/renderer).
 * Usage: tsx build/build.ts [--node-only | --renderer-only]
 */
import { build, type BuildOptions } from 'esbuild';
import { build as viteBuild } from 'vite';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const started = performance.now();

/** Node-side entry points; workers are named worker-<name>.js so electron/processes/entries.ts finds them. */
const nodeEntries = {
  cli: 'electron/cli/t1lab.ts',
  main: 'electron/main/index.ts',
  'worker-probe': 'electron/workers/probe.ts',
  'worker-eval': 'electron/workers/eval.ts',
  'worker-policy': 'electron/workers/policy.ts',
  'worker-pty-host': 'electron/workers/pty-host.ts',
  'worker-trainer': 'electron/workers/trainer.ts',
  'worker-audit': 'electron/workers/audit.ts',
};

const common: BuildOptions = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Dependencies ship in node_modules (native addons must stay there); only our code is bundled.
  packages: 'external',
  logLevel: 'warning',
};

async function buildNode() {
  rmSync(join(root, 'dist/node'), { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: nodeEntries,
    outdir: 'dist/node',
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    banner: {
      js: "import { createRequire as __t1CreateRequire } from 'node:module'; const require = __t1CreateRequire(import.meta.url);",
    },
  });
  await build({
    ...common,
    entryPoints: { preload: 'electron/preload/index.ts' },
    outfile: 'dist/node/preload.cjs',
    format: 'cjs',
    // A sandboxed preload can require only 'electron' and a few Node builtins: bundle everything else in.
    packages: undefined,
    external: ['electron'],
  });
}

async function buildRenderer() {
  await viteBuild({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
}

if (!args.has('--renderer-only')) await buildNode();
if (!args.has('--node-only')) await buildRenderer();
process.stderr.write(`built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
