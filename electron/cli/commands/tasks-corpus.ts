/** `t1lab tasks stats|rebalance|overlap`: the skew of a corpus, stratified subsets, and disjointness from a suite. */
import type { Command } from 'commander';
import { loadTaskSource, type Task, type TaskSource } from '../../lab/tasks';
import {
  DEFAULT_OVERLAP_THRESHOLD,
  measureOverlap,
  taskSignature,
  type OverlapReport,
  type TaskSignature,
} from '../../lab/tasks/synth/overlap';
import { rebalance } from '../../lab/tasks/synth/rebalance';
import { writeLines } from '../../lab/tasks/synth/run-synth';
import { corpusStats, type CorpusStats } from '../../lab/tasks/synth/corpus-mix';
import { loadTarget } from '../../lab/tasks/synth/targets';
import { packLineOf } from '../../lab/tasks/pack';
import { UsageError, WorkFailed } from '../errors';
import { printJson, progressBar, table, type Io } from '../output';
import { asUsage, intOption } from './tasks-synth';

async function loadCorpus(path: string, what: string): Promise<TaskSource> {
  const source = await loadTaskSource(path).catch((error: Error) => {
    throw new UsageError(`${what}: ${path}: ${error.message}`);
  });
  if (!source.tasks.length)
    throw new UsageError(
      `${what}: no valid task in ${path}${source.invalid.length ? ` (${source.invalid.length} invalid; see \`t1lab tasks validate ${path}\`)` : ''}`,
    );
  return source;
}

function shares(m: Record<string, number>, total: number): string[][] {
  return Object.entries(m).map(([k, v]) => [k, String(v), `${((100 * v) / total).toFixed(1)}%`]);
}

/** The category and difficulty tables of a corpus's mix. */
function printMix(io: Io, stats: CorpusStats): void {
  io.out(table([['category', 'tasks', 'share'], ...shares(stats.categories, stats.count)]));
  io.out(`\n${table([['difficulty', 'tasks', 'share'], ...shares(stats.difficulties, stats.count)])}`);
}

export function registerCorpus(tasks: Command, io: Io): void {
  registerStats(tasks, io);
  registerRebalance(tasks, io);
  registerOverlap(tasks, io);
}

/** `tasks stats <pack>`: the mix of a corpus. */
function registerStats(tasks: Command, io: Io): void {
  tasks
    .command('stats')
    .argument('<pack>', 'a pack (.jsonl) or a folder of tasks')
    .option('--json', 'print JSON: {count, categories, difficulties, families, top5Share}')
    .description(
      'the mix of a corpus: tasks per category, difficulty and family, and the share of the top 5 categories',
    )
    .action((pack: string, opts: { json?: boolean }) => statsCommand(io, pack, opts));
}

async function statsCommand(io: Io, pack: string, opts: { json?: boolean }): Promise<void> {
  const source = await loadCorpus(pack, 'stats');
  const stats = corpusStats(source.tasks);
  if (opts.json) return printJson(io, { ...stats, invalid: source.invalid.length });
  printMix(io, stats);
  io.out(
    `\n${stats.count} task(s), ${Object.keys(stats.families).length} families, top 5 categories: ${(stats.top5Share * 100).toFixed(1)}%\n`,
  );
}

interface RebalanceOptions {
  target: string;
  out: string;
  count?: string;
  seed: string;
  json?: boolean;
}

/** `tasks rebalance <pack>`: a stratified subset whose mix approaches a target. */
function registerRebalance(tasks: Command, io: Io): void {
  tasks
    .command('rebalance')
    .argument('<pack>', 'the source pack (.jsonl) or folder of tasks')
    .requiredOption(
      '--target <mix>',
      'uniform | tb2 | FILE.json ({"categories": {NAME: weight}, "difficulties": {NAME: weight}})',
    )
    .requiredOption('--out <pack>', 'the subset pack to write (.jsonl)')
    .option('--count <n>', 'tasks in the subset (default: as many as the source allows)')
    .option('--seed <s>', 'which tasks are taken when several fit', '1')
    .option('--json', 'print the stats of the subset as JSON')
    .description('write a stratified subset of a corpus whose category/difficulty mix approaches a target')
    .action((pack: string, opts: RebalanceOptions) => rebalanceCommand(io, pack, opts));
}

async function rebalanceCommand(io: Io, pack: string, opts: RebalanceOptions): Promise<void> {
  if (!opts.out.endsWith('.jsonl')) throw new UsageError(`--out: ${opts.out}: a pack file name ends in .jsonl`);
  const source = await loadCorpus(pack, 'rebalance');
  const before = corpusStats(source.tasks);
  const target = await asUsage(() => loadTarget(opts.target, Object.keys(before.categories)));
  const count = intOption('--count', opts.count, source.tasks.length, 1, 10_000_000);
  const seed = intOption('--seed', opts.seed, 1, 0, 2 ** 31 - 1);
  const subset: Task[] = rebalance(source.tasks, target, count, seed);
  await writeLines(
    opts.out,
    subset.map((t) => packLineOf(t)),
  );
  const after = corpusStats(subset);
  if (opts.json)
    return printJson(io, {
      pack: opts.out,
      ...after,
      source: { count: before.count, top5Share: before.top5Share },
    });
  printMix(io, after);
  io.out(
    `\nwrote ${after.count} of ${before.count} task(s) to ${opts.out}; top 5 categories ${(before.top5Share * 100).toFixed(1)}% -> ${(after.top5Share * 100).toFixed(1)}%\n`,
  );
}

interface OverlapOptions {
  train: string;
  eval: string;
  threshold?: string;
  json?: boolean;
}

/** `tasks overlap`: how close a training corpus comes to an eval suite; exit 1 on overlap. */
function registerOverlap(tasks: Command, io: Io): void {
  tasks
    .command('overlap')
    .requiredOption('--train <pack>', 'the training corpus (pack or folder)')
    .requiredOption('--eval <suite>', 'the eval suite (pack or folder; imported Terminal-Bench tasks work too)')
    .option(
      '--threshold <x>',
      `similarity (0-1) at or above which a pair overlaps (default ${DEFAULT_OVERLAP_THRESHOLD})`,
    )
    .option('--json', 'print JSON: {pairs, maxSimilarity, flagged: [{train, eval, similarity, kind}], verdict}')
    .description(
      'measure how close a training corpus comes to an eval suite (instructions, solutions, files and tests); exits 1 on overlap',
    )
    .action((opts: OverlapOptions) => overlapCommand(io, opts));
}

async function overlapCommand(io: Io, opts: OverlapOptions): Promise<void> {
  const threshold = opts.threshold === undefined ? DEFAULT_OVERLAP_THRESHOLD : Number(opts.threshold);
  if (!(threshold > 0 && threshold <= 1))
    throw new UsageError(`--threshold: '${opts.threshold}' is not a number in (0, 1]`);
  const train = await loadCorpus(opts.train, '--train');
  const evals = await loadCorpus(opts.eval, '--eval');
  const { trainSigs, evalSigs } = signatures(io, train.tasks, evals.tasks);
  const bar = progressBar(io, 'compare', evalSigs.length);
  const report = measureOverlap(trainSigs, evalSigs, threshold, (done) => bar.update(done));
  bar.stop();
  if (opts.json) printJson(io, report);
  else printOverlap(io, report, threshold);
  if (report.verdict === 'overlap')
    throw new WorkFailed(
      opts.json
        ? ''
        : `the training corpus overlaps the eval suite (${report.flaggedCount} pair/kind(s) at >= ${threshold})`,
    );
}

/** The signatures of both corpora, with a progress bar over them. */
function signatures(io: Io, train: Task[], evals: Task[]): { trainSigs: TaskSignature[]; evalSigs: TaskSignature[] } {
  const sign = progressBar(io, 'signatures', train.length + evals.length);
  let n = 0;
  const sig = (t: Task) => {
    const s = taskSignature(t);
    if (++n % 500 === 0) sign.update(n);
    return s;
  };
  const trainSigs = train.map(sig);
  const evalSigs = evals.map(sig);
  sign.update(n);
  sign.stop();
  return { trainSigs, evalSigs };
}

/** The flagged pairs (the first 50) and the verdict line. */
function printOverlap(io: Io, report: OverlapReport, threshold: number): void {
  if (report.flagged.length)
    io.out(
      table([
        ['train', 'eval', 'kind', 'similarity'],
        ...report.flagged.slice(0, 50).map((f) => [f.train, f.eval, f.kind, f.similarity.toFixed(3)]),
      ]),
    );
  io.out(
    `${report.pairs} pair(s) compared; max similarity ${report.maxSimilarity.toFixed(3)}${report.max ? ` (${report.max.kind}: ${report.max.train} ~ ${report.max.eval})` : ''}; ${report.flaggedCount} flagged at >= ${threshold}: ${report.verdict}\n`,
  );
}
