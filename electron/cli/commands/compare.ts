/**
 * `t1lab compare RUN_A RUN_B [--json]` (a run folder, a run id, or FILE#MODEL of an outcomes.jsonl): two evaluations paired task by task (resolved rates with intervals,
 * the difference with a paired bootstrap interval, McNemar's exact test, mean dense reward, per category).
 * `t1lab power --tasks N --base P ...`: what difference a benchmark of N tasks can detect.
 */
import type { Command } from 'commander';
import type { CompareResult, PowerResult } from '../../domain/stats';
import { labDataDir } from '../../lab/paths';
import { compareRuns } from '../../lab/stats/compare';
import { loadRunOutcomes } from '../../lab/stats/load-run';
import { outcomesRun, parseOutcomesRef } from '../../lab/stats/outcomes-file';
import { powerAnalysis } from '../../lab/stats/power';
import { measureAttemptNoise, type MeasuredShares } from '../../lab/stats/power-avg-at-k';
import { UsageError } from '../errors';
import { printJson, table, type Io } from '../output';
import { formatPoints, formatRate } from '../../domain/rates';

const ci = ([lo, hi]: readonly [number, number], f: (x: number) => string) => `[${f(lo)}, ${f(hi)}]`;
const pValue = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

const DESIGN_WORDS: Record<CompareResult['design'], string> = {
  'paired-attempts': 'paired by attempt (one attempt per task in both runs): McNemar exact on attempt pairs',
  'paired-task-shares': "paired by task (several attempts per task): each task's success share is one observation",
  unpaired: 'unpaired (no task in common)',
};

function testLine(r: CompareResult): string {
  if (r.mcnemar)
    return `McNemar exact: b = ${r.mcnemar.b} (A only), c = ${r.mcnemar.c} (B only), p = ${pValue(r.mcnemar.p)}`;
  if (r.taskShares) {
    const t = r.taskShares.test;
    const how = t.exact
      ? `exact over ${t.permutations} sign patterns`
      : `Monte-Carlo, ${t.permutations} sign patterns, seed ${t.seed}`;
    const dense = r.taskShares.dense.test;
    return `sign-flip permutation test on per-task share differences: ${t.nonZero} of ${r.taskShares.tasks} tasks changed, p = ${pValue(t.p)} (${how}); dense reward p = ${pValue(dense.p)}`;
  }
  return `two-proportion z-test: z = ${r.unpairedTest!.z.toFixed(2)}, p = ${pValue(r.unpairedTest!.p)}`;
}

export function formatCompare(r: CompareResult): string {
  const lines = [
    `A ${r.a.run}: resolved ${formatRate(r.a.resolvedRate)} ${ci(r.a.ci95, formatRate)} · mean reward ${r.a.meanReward.toFixed(2)} · ${r.a.tasks} tasks, ${r.a.episodes} episodes`,
    `B ${r.b.run}: resolved ${formatRate(r.b.resolvedRate)} ${ci(r.b.ci95, formatRate)} · mean reward ${r.b.meanReward.toFixed(2)} · ${r.b.tasks} tasks, ${r.b.episodes} episodes`,
    `B - A: ${formatPoints(r.diff)} ${ci(r.diffCi95, formatPoints)} (${r.paired ? 'paired' : 'UNPAIRED'}, ${r.tasks} tasks)`,
    `design: ${DESIGN_WORDS[r.design]}`,
    testLine(r),
    `mean dense reward B - A: ${r.reward.diff >= 0 ? '+' : ''}${r.reward.diff.toFixed(2)} [${r.reward.ci95[0].toFixed(2)}, ${r.reward.ci95[1].toFixed(2)}]`,
    ...r.warnings.map((w) => `warning: ${w}`),
    '',
  ];
  const rows: (string | number)[][] = [
    ['category', 'tasks', 'A', 'B', 'B - A', '95% CI', r.taskShares ? 'sign-flip p' : 'McNemar p'],
  ];
  for (const [name, c] of Object.entries(r.byCategory))
    rows.push([
      name,
      c.tasks,
      formatRate(c.a),
      formatRate(c.b),
      formatPoints(c.diff),
      ci(c.diffCi95, formatPoints),
      pValue(c.test.p),
    ]);
  const passAt =
    r.a.passAtK.length > 1
      ? `\npass@k  A: ${r.a.passAtK.map((p) => `@${p.k} ${formatRate(p.value)}`).join(' ')}\n        B: ${r.b.passAtK.map((p) => `@${p.k} ${formatRate(p.value)}`).join(' ')}\n`
      : '';
  const only =
    r.onlyA.length || r.onlyB.length
      ? `\nonly in A: ${r.onlyA.join(', ') || '-'}\nonly in B: ${r.onlyB.join(', ') || '-'}\n`
      : '';
  return `${lines.join('\n')}\n${Object.keys(r.byCategory).length ? table(rows) : ''}${passAt}${only}${r.method}\n`;
}

export function formatPower(r: PowerResult): string {
  const mde = (x: number | null) => (x === null ? 'not detectable at this size' : formatPoints(x));
  const lines = [
    `${r.tasks} tasks, base rate ${formatRate(r.base)}, alpha ${r.alpha}, power ${r.power}`,
    `minimum detectable difference, independent samples: ${mde(r.independent.mde)}`,
    `minimum detectable difference, greedy single attempt paired (McNemar):  ${mde(r.paired.mde)}  (discordance ${r.paired.discordance === null ? '-' : formatRate(r.paired.discordance)}, ${r.paired.discordanceSource})`,
    `minimum detectable difference, avg@${r.avgAtK.attempts} paired by task (sign-flip):  ${mde(r.avgAtK.mde)}  (attempt noise ${r.avgAtK.attemptNoise.toFixed(2)}, ${r.avgAtK.attemptNoiseSource}; task sd ${r.avgAtK.taskSd.toFixed(3)})`,
  ];
  if (r.detect !== null) {
    lines.push(
      `tasks needed to detect ${formatPoints(r.detect)}: independent ${r.independent.tasksNeeded ?? '-'}, greedy paired ${r.paired.tasksNeeded ?? '-'}, avg@${r.avgAtK.attempts} ${r.avgAtK.tasksNeeded ?? '-'}`,
    );
  }
  lines.push(r.approximation);
  return `${lines.join('\n')}\n`;
}

/** A baseline run's tasks, avg@K, K and attempt noise (power --run). */
function measuredShares(ref: string): MeasuredShares & { run: string } {
  const { run, episodes } = loadRunOutcomes(labDataDir(), ref);
  const byTask = new Map<string, { attempts: number; resolved: number }>();
  for (const e of episodes) {
    const t = byTask.get(e.taskId) ?? { attempts: 0, resolved: 0 };
    t.attempts++;
    if (e.resolved) t.resolved++;
    byTask.set(e.taskId, t);
  }
  const m = measureAttemptNoise([...byTask.values()]);
  if (!m)
    throw new UsageError(
      `run ${ref} has fewer than 2 tasks with 2 or more attempts: it cannot measure the attempt noise (evaluate with --attempts K)`,
    );
  return { ...m, run };
}

function fraction(name: string, value: string | undefined, { open = false } = {}): number | undefined {
  if (value === undefined) return undefined;
  const x = Number(value);
  if (!Number.isFinite(x) || x <= 0 || (open ? x >= 1 : x > 1))
    throw new UsageError(`${name} must be a number in (0, 1${open ? ')' : ']'}, got '${value}'`);
  return x;
}

export function registerCompare(program: Command, io: Io): void {
  registerCompareRuns(program, io);
  registerPower(program, io);
}

interface CompareOptions {
  suite?: string;
  resamples?: string;
  seed?: string;
  json?: boolean;
}

/** `compare <runA> <runB>`: two evaluations paired task by task. */
function registerCompareRuns(program: Command, io: Io): void {
  program
    .command('compare')
    .description('compare two evaluation runs task by task (paired bootstrap, McNemar exact, per category)')
    .argument('<runA>', 'a run folder, a run id, or FILE#MODEL: a model of an outcomes.jsonl (the baseline)')
    .argument('<runB>', 'a run folder, a run id, or FILE#MODEL (the candidate)')
    .option('--suite <name>', 'the suite to take from an outcomes.jsonl holding several')
    .option('--resamples <n>', 'bootstrap resamples (default 10000)')
    .option('--seed <n>', 'bootstrap seed (default 1)')
    .option('--json', 'print the result as JSON')
    .action((runA: string, runB: string, opts: CompareOptions) => compareCommand(io, runA, runB, opts));
}

function compareCommand(io: Io, runA: string, runB: string, opts: CompareOptions): void {
  const resamples = opts.resamples === undefined ? undefined : Number(opts.resamples);
  if (resamples !== undefined && (!Number.isInteger(resamples) || resamples < 100))
    throw new UsageError(`--resamples must be an integer >= 100, got '${opts.resamples}'`);
  const seed = opts.seed === undefined ? undefined : Number(opts.seed);
  if (seed !== undefined && !Number.isInteger(seed))
    throw new UsageError(`--seed must be an integer, got '${opts.seed}'`);
  const dataDir = labDataDir();
  const load = (ref: string) => loadCompared(dataDir, ref, opts.suite);
  const result = compareRuns(load(runA), load(runB), { resamples, seed });
  if (opts.json) printJson(io, result);
  else io.out(formatCompare(result));
}

/** One side of a comparison: a model of an outcomes file (FILE#MODEL, --suite picks the suite) or a run. */
function loadCompared(dataDir: string, ref: string, suite: string | undefined) {
  const fromFile = parseOutcomesRef(ref);
  if (fromFile) return outcomesRun(fromFile.file, fromFile.model, suite);
  if (suite !== undefined) throw new UsageError(`--suite applies to FILE#MODEL outcomes, not to the run '${ref}'`);
  return loadRunOutcomes(dataDir, ref);
}

/** `power`'s flags as commander hands them over. */
type PowerOptions = Record<string, string | boolean | undefined>;

/** `power`: the minimum detectable difference of a benchmark, by design. */
function registerPower(program: Command, io: Io): void {
  program
    .command('power')
    .description(
      'the minimum detectable difference between two checkpoints on N tasks: greedy paired (McNemar), avg@K paired by task, independent',
    )
    .option('--tasks <n>', 'tasks in the benchmark (required unless --run gives them)')
    .option('--base <p>', "the baseline's resolved rate, in (0, 1) (required unless --run gives it)")
    .option('--attempts <k>', "avg@K design: attempts per task under each checkpoint (default 1, or the --run's)")
    .option(
      '--attempt-noise <w>',
      'avg@K design: share of base(1 - base) that lies between attempts of a task, in [0, 1] (default 0.5, or measured by --run)',
    )
    .option(
      '--run <dir>',
      'a baseline run with several attempts per task: its tasks, avg@K and attempt noise (what --tasks, --base, --attempts, --attempt-noise leave out)',
    )
    .option('--alpha <a>', 'two-sided significance level (default 0.05)')
    .option('--power <p>', 'power (default 0.8)')
    .option('--discordance <d>', 'share of tasks whose outcome differs between the checkpoints (paired design)')
    .option(
      '--rho <r>',
      "correlation of the two checkpoints' outcomes on a task, when --discordance is not given (default 0.5)",
    )
    .option('--runs <a,b>', 'measure the discordance from two real runs (their McNemar discordant share)')
    .option('--detect <d>', 'a difference to detect: also print the tasks needed')
    .option('--json', 'print the result as JSON')
    .action((opts: PowerOptions) => powerCommand(io, opts));
}

function powerCommand(io: Io, opts: PowerOptions): void {
  const measured = typeof opts.run === 'string' ? measuredShares(opts.run) : null;
  const { tasks, base, attempts, attemptNoise, rho } = benchmarkDesign(opts, measured);
  const { discordance, discordanceSource } = pairedDiscordance(opts);
  const result = powerAnalysis({
    tasks,
    base,
    attempts,
    attemptNoise,
    attemptNoiseSource:
      measured && opts.attemptNoise === undefined
        ? `measured: ${measured.tasks} tasks x ${measured.attempts} attempts of ${measured.run}`
        : undefined,
    alpha: fraction('--alpha', opts.alpha as string | undefined, { open: true }),
    power: fraction('--power', opts.power as string | undefined, { open: true }),
    discordance,
    discordanceSource,
    rho,
    detect: fraction('--detect', opts.detect as string | undefined, { open: true }),
  });
  if (opts.json) printJson(io, result);
  else io.out(formatPower(result));
}

/** The benchmark's size, baseline rate, avg@K attempts, attempt noise and rho: from the flags, or what a --run
 * measured where a flag leaves one out. A bad value is a usage error. */
function benchmarkDesign(opts: PowerOptions, measured: (MeasuredShares & { run: string }) | null) {
  const tasks = opts.tasks === undefined && measured ? measured.tasks : Number(opts.tasks);
  if (!Number.isInteger(tasks) || tasks < 2)
    throw new UsageError(`--tasks must be an integer >= 2, got '${String(opts.tasks)}'`);
  const attempts = opts.attempts === undefined ? measured?.attempts : Number(opts.attempts);
  if (attempts !== undefined && (!Number.isInteger(attempts) || attempts < 1))
    throw new UsageError(`--attempts must be an integer >= 1, got '${String(opts.attempts)}'`);
  const attemptNoise = opts.attemptNoise === undefined ? measured?.attemptNoise : Number(opts.attemptNoise);
  if (attemptNoise !== undefined && !(attemptNoise >= 0 && attemptNoise <= 1))
    throw new UsageError(`--attempt-noise must be in [0, 1], got '${String(opts.attemptNoise)}'`);
  const base =
    opts.base === undefined && measured
      ? Math.min(0.999, Math.max(0.001, measured.base))
      : fraction('--base', opts.base as string | undefined, { open: true });
  if (base === undefined) throw new UsageError("--base P is required (or --run DIR to take the baseline's avg@K)");
  const rho = opts.rho === undefined ? undefined : Number(opts.rho);
  if (rho !== undefined && !(rho >= 0 && rho < 1))
    throw new UsageError(`--rho must be in [0, 1), got '${String(opts.rho)}'`);
  return { tasks, base, attempts, attemptNoise, rho };
}

/** The paired design's discordance: --discordance, or measured from two one-attempt runs (--runs A,B). */
function pairedDiscordance(opts: PowerOptions): { discordance?: number; discordanceSource?: string } {
  const discordance = fraction('--discordance', opts.discordance as string | undefined);
  if (typeof opts.runs !== 'string') return { discordance, discordanceSource: undefined };
  if (discordance !== undefined) throw new UsageError('give --discordance or --runs, not both');
  const [a, b, ...rest] = opts.runs.split(',');
  if (!a || !b || rest.length) throw new UsageError(`--runs takes two runs separated by a comma, got '${opts.runs}'`);
  const dataDir = labDataDir();
  const r = compareRuns(loadRunOutcomes(dataDir, a), loadRunOutcomes(dataDir, b), { resamples: 200 });
  if (r.design === 'paired-task-shares')
    throw new UsageError(
      `runs ${a} and ${b} have several attempts per task: --runs measures the greedy design's discordance from one-attempt runs; give the baseline as --run for the avg@K design`,
    );
  if (!r.mcnemar || r.pairs === 0) throw new UsageError(`runs ${a} and ${b} share no task: no discordance to measure`);
  return {
    discordance: Math.max((r.mcnemar.b + r.mcnemar.c) / r.pairs, 1 / r.pairs),
    discordanceSource: `measured: ${r.mcnemar.b + r.mcnemar.c} of ${r.pairs} attempt pairs differ between ${a} and ${b}`,
  };
}
