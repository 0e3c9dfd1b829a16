/**
 * `t1lab runs outcomes [MODEL=]RUN... --out FILE`: eval run folders as one outcomes.jsonl (one line per
 * task and attempt), the file `repro` and `ablate` commit, so that existing runs can be compared from a
 * committed file too: `t1lab compare FILE#MODEL_A FILE#MODEL_B`.
 */
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { labDataDir } from '../../lab/paths';
import { outcomeLines } from '../../lab/experiments/outcome-lines';
import { readRun } from '../../lab/runs/library';
import { resolveRunDir } from '../../lab/stats/load-run';
import { writeOutcomes } from '../../lab/stats/outcomes-file';
import { UsageError } from '../errors';
import { printJson, type Io } from '../output';

/** A suite path as the short name outcomes.jsonl files use (`tasks/suites/id-nano.jsonl` -> `id-nano`). */
const suiteName = (suite: string) => basename(suite).replace(/\.jsonl$/, '') || suite;

export function registerRunsOutcomes(runs: Command, io: Io): void {
  runs
    .command('outcomes')
    .description(
      'write eval runs as one outcomes.jsonl (one line per task and attempt) for `t1lab compare FILE#MODEL ...`',
    )
    .argument('<runs...>', 'run folders or ids, each optionally named as MODEL=RUN (default model name: the run id)')
    .requiredOption('--out <file>', 'the outcomes.jsonl to write')
    .option('--suite <name>', "the suite name written on every line (default: each run's suite file name)")
    .option('--json', 'print what was written as JSON')
    .action((refs: string[], opts: { out: string; suite?: string; json?: boolean }) => {
      const dataDir = labDataDir();
      const models = new Set<string>();
      const lines = refs.flatMap((ref) => {
        const eq = ref.indexOf('=');
        const runRef = eq > 0 ? ref.slice(eq + 1) : ref;
        const runDir = resolveRunDir(dataDir, runRef);
        const { manifest } = readRun(runDir);
        const model = eq > 0 ? ref.slice(0, eq) : manifest.id;
        if (models.has(model)) throw new UsageError(`model name '${model}' is given twice: name the runs as MODEL=RUN`);
        models.add(model);
        return outcomeLines({ runDir, model, suite: opts.suite ?? suiteName(manifest.config.suite) });
      });
      const file = resolve(opts.out);
      writeOutcomes(file, lines);
      if (opts.json) printJson(io, { file, lines: lines.length, models: [...models] });
      else io.out(`${file}: ${lines.length} lines, models ${[...models].join(', ')}\n`);
    });
}
