/**
 * `npm run bench [-- NAME...] [--quick] [--json FILE] [--FLAG...]` (flags a bench reads, e.g. `ppo --recipe`): runs every test/bench/*.bench.ts (or those named)
 * and prints each figure with its ratio against the same-run baseline and its goal.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Bench, Figure } from './reporter';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const jsonIndex = args.indexOf('--json');
const jsonFile = jsonIndex >= 0 ? args[jsonIndex + 1] : undefined;
const names = args.filter((a, i) => !a.startsWith('--') && (jsonIndex < 0 || i !== jsonIndex + 1));

const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const results: { bench: string; figures: Figure[]; notes: string[] }[] = [];
let failed = false;

for (const file of files) {
  const bench = (await import(pathToFileURL(join(here, file)).href)).default as Bench;
  if (names.length && !names.includes(bench.name)) continue;
  process.stdout.write(`\n## ${bench.name} — ${bench.about}\n`);
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    await bench.run(
      {
        figure(f) {
          figures.push(f);
          const ratio =
            f.ratio !== undefined
              ? `  ratio ${f.ratio.toFixed(2)}x${f.baseline ? ` vs ${f.baseline.name} (${fmt(f.baseline.value)} ${f.baseline.unit ?? f.unit})` : ''}`
              : '';
          const goal = f.goal ? `  goal ${f.goal}: ${f.met ? 'met' : 'NOT met'}` : '';
          process.stdout.write(`  ${f.name.padEnd(48)} ${fmt(f.value).padStart(10)} ${f.unit}${ratio}${goal}\n`);
        },
        note(text) {
          notes.push(text);
          process.stdout.write(`  · ${text}\n`);
        },
      },
      { quick, flags: new Set(args.filter((a) => a.startsWith('--') && a !== '--quick' && a !== '--json')) },
    );
  } catch (error) {
    failed = true;
    process.stdout.write(`  FAILED: ${(error as Error).stack ?? String(error)}\n`);
  }
  results.push({ bench: bench.name, figures, notes });
}

function fmt(n: number): string {
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toPrecision(3);
}

if (jsonFile) writeFileSync(jsonFile, JSON.stringify(results, null, 2));
process.exitCode = failed ? 1 : 0;
