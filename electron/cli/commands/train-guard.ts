/**
 * `t1lab train guard DIR [--min-rise X] [--top N] [--strict] [--json]`: the dense-reward guard of a PPO run,
 * running or finished: the assertions flagged for farming (pass rate up, binary reward not), the dense and
 * binary rewards per category (first half of the steps -> second half), and the assertions with the largest
 * pass-rate rises. DIR is a run folder or a run id under the lab's training/. `--json` prints
 * `{runDir, ...DenseGuard}` (electron/domain/dense-guard.ts). Exit: 0, or 1 with --strict when something
 * is flagged; 2 for a DIR that is not a training run.
 */
import type { Command } from 'commander';
import { DEFAULT_MIN_RISE, type DenseGuard } from '../../domain/dense-guard';
import { readDenseGuard } from '../../lab/ppo/guard-report';
import { ExitStatus, UsageError } from '../errors';
import { printJson, table, type Io } from '../output';
import { resolveRunDir } from './train-watch';

/** Assertions listed by rise in the text view. */
const DEFAULT_TOP = 10;

const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);
const num = (x: number | null) => (x === null ? '—' : x.toFixed(2));
const span = (f: (x: number | null) => string, before: number | null, after: number) => `${f(before)} -> ${f(after)}`;

export function guardText(runDir: string, g: DenseGuard, top: number): string {
  const out = [
    `${runDir}: ${g.steps.length} trained steps, ${g.episodes} episodes; flagged when a pass rate rises by >= ${pct(g.minRise)} while the binary reward does not`,
    '',
  ];
  out.push(`Flagged assertions: ${g.flags.length || 'none'}`);
  if (g.flags.length)
    out.push(
      table([
        ['task', 'assertion', 'pass rate', 'binary'],
        ...g.flags.map((f) => [
          f.taskId,
          f.assertion,
          span(pct, f.passRateBefore, f.passRateAfter),
          span(pct, f.binaryBefore, f.binaryAfter),
        ]),
      ]).trimEnd(),
    );
  out.push('', 'Rewards per category (first half -> second half of its steps)');
  if (!g.categories.length) out.push('no trained episodes yet');
  else
    out.push(
      table([
        ['category', 'episodes', 'dense', 'fraction', 'binary'],
        ...g.categories.map((c) => [
          c.category,
          c.episodes,
          span(num, c.dense.before, c.dense.after),
          span(pct, c.fraction.before, c.fraction.after),
          span(pct, c.binary.before, c.binary.after),
        ]),
      ]).trimEnd(),
    );
  if (g.assertions.length) {
    out.push('', `Assertions by pass-rate rise (top ${Math.min(top, g.assertions.length)} of ${g.assertions.length})`);
    out.push(
      table([
        ['task', 'assertion', 'pass rate', 'rise', 'flag'],
        ...g.assertions
          .slice(0, top)
          .map((a) => [
            a.taskId,
            a.assertion,
            span(pct, a.passRateBefore, a.passRateAfter),
            a.rise === null ? '—' : `${a.rise >= 0 ? '+' : ''}${Math.round(a.rise * 100)} pp`,
            a.flagged ? 'FLAGGED' : '',
          ]),
      ]).trimEnd(),
    );
  }
  // An empty last column (an unflagged row) leaves no trailing blanks.
  return out.map((l) => l.replace(/ +$/gm, '')).join('\n') + '\n';
}

export function registerTrainGuard(train: Command, io: Io): void {
  train
    .command('guard')
    .description(
      'the dense-reward guard of a PPO run: assertions whose pass rate rose while the binary reward did not, dense vs binary reward per category',
    )
    .argument('<dir>', 'the run folder, or its id under the lab data folder')
    .option('--min-rise <x>', 'pass-rate rise (0..1) that flags an assertion', String(DEFAULT_MIN_RISE))
    .option('--top <n>', 'assertions listed by rise', String(DEFAULT_TOP))
    .option('--strict', 'exit 1 when an assertion is flagged')
    .option('--json', 'print the whole guard as JSON')
    .action((arg: string, o: { minRise: string; top: string; strict?: boolean; json?: boolean }) => {
      const minRise = Number(o.minRise);
      if (!Number.isFinite(minRise) || minRise < 0 || minRise > 1)
        throw new UsageError(`--min-rise ${o.minRise}: a number from 0 to 1`);
      const top = Number(o.top);
      if (!Number.isInteger(top) || top < 0) throw new UsageError(`--top ${o.top}: a whole number`);
      const runDir = resolveRunDir(arg);
      const guard = readDenseGuard(runDir, minRise);
      if (o.json) printJson(io, { runDir, ...guard });
      else io.out(guardText(runDir, guard, top));
      if (o.strict && guard.flags.length) throw new ExitStatus(1);
    });
}
