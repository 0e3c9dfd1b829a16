/**
 * `t1lab tasks families` and `t1lab tasks synth`: the task families and the corpora they write
 * (deterministic JSONL packs), optionally audited by execution with a resumable cache.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { ALL_FAMILIES, type Split } from '../../../tasks/families';
import { LabError } from '../../ipc/common/errors';
import { labDataDir } from '../../lab/paths';
import { AuditCache } from '../../lab/tasks/synth/audit-cache';
import { chooseFamilies } from '../../lab/tasks/synth/generate';
import { proposeWithLlm } from '../../lab/tasks/synth/llm-propose';
import { runSynth, type SynthSummary } from '../../lab/tasks/synth/run-synth';
import { UsageError, WorkFailed } from '../errors';
import { printJson, progressBar, table, type Io } from '../output';

/** Bad parameters found by the lab are the caller's mistake: exit 2. */
export async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof LabError && error.code === 'INVALID_PARAMS') throw new UsageError(error.message);
    throw error;
  }
}

export function intOption(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${name}: '${raw}' is not a whole number from ${min} to ${max}`);
  return n;
}

/** A progress line with an ETA from the rate so far, for logs without a terminal (the bar has its own). */
export function withEta(started: number, done: number, total: number, detail: string): string {
  if (done <= 0) return detail;
  const secs = (((performance.now() - started) / done) * (total - done)) / 1000;
  const eta =
    secs >= 3600
      ? `${(secs / 3600).toFixed(1)} h`
      : secs >= 60
        ? `${Math.round(secs / 60)} min`
        : `${Math.round(secs)} s`;
  return `${detail} | eta ${eta}`;
}

function formatSummary(s: SynthSummary): string {
  const mix = (m: Record<string, number>) =>
    Object.entries(m)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || '-';
  let text = `wrote ${s.count} task(s) to ${s.pack} in ${(s.durationMs / 1000).toFixed(1)} s\n`;
  text += `  categories:   ${mix(s.categories)}\n  difficulties: ${mix(s.difficulties)}\n  families:     ${Object.keys(s.families).length}\n`;
  text += `  distinct:     ${s.distinct.tasks} tasks, ${s.distinct.instructions} instructions, ${s.distinct.solutions} solutions, ${s.distinct.fileTrees} file trees\n`;
  text += `  rejected:     ${mix(s.rejected)}\n`;
  if (s.audit)
    text += table([
      ['family', 'audited', 'ok', 'ok-rate', 'cached'],
      ...Object.entries(s.audit).map(([f, a]) => [
        f,
        a.audited,
        a.ok,
        a.audited ? `${((100 * a.ok) / a.audited).toFixed(1)}%` : '-',
        a.cached,
      ]),
    ]);
  return text;
}

export function registerSynth(tasks: Command, io: Io): void {
  registerFamilies(tasks, io);
  registerSynthPack(tasks, io);
}

/** `tasks families`: the families the synthesizer draws from, a row each. */
function registerFamilies(tasks: Command, io: Io): void {
  tasks
    .command('families')
    .option('--json', 'print JSON: [{name, category, difficulty, heldOut, summary}]')
    .description('list the task families the synthesizer draws from')
    .action((opts: { json?: boolean }) => listFamilies(io, opts));
}

function listFamilies(io: Io, opts: { json?: boolean }): void {
  const rows = ALL_FAMILIES.map((f) => ({
    name: f.name,
    category: f.category,
    difficulty: f.difficulty,
    heldOut: f.heldOut,
    summary: f.summary,
  }));
  if (opts.json) return printJson(io, rows);
  io.out(
    table([
      ['family', 'category', 'difficulty', 'split', 'summary'],
      ...rows.map((r) => [r.name, r.category, r.difficulty, r.heldOut ? 'held out' : 'train+eval', r.summary]),
    ]),
  );
  io.out(
    `${rows.length} families, ${new Set(rows.map((r) => r.category)).size} categories, ${rows.filter((r) => r.heldOut).length} held out\n`,
  );
}

interface SynthOptions {
  out: string;
  count: string;
  seed: string;
  families?: string;
  split: string;
  audit?: boolean;
  auditCache?: string;
  concurrency: string;
  llm?: string;
  seeds?: string;
  minCommands?: string;
  apiKeyEnv?: string;
  json?: boolean;
}

/** `tasks synth`: a pack of tasks from the families (or proposed by a model), optionally audited. */
function registerSynthPack(tasks: Command, io: Io): void {
  tasks
    .command('synth')
    .requiredOption('--out <pack>', 'the pack to write (.jsonl)')
    .option('--count <n>', 'number of tasks', '100')
    .option('--seed <s>', 'synth seed (same arguments, byte-identical pack)', '1')
    .option('--families <names>', 'comma-separated family names (default: every family the split allows)')
    .option('--split <split>', 'train (never held-out families or eval seeds) or eval', 'train')
    .option('--min-commands <n>', 'keep only tasks whose oracle needs at least N commands (long-horizon suites)')
    .option('--audit', 'audit every task by execution (oracle, no-op, oracle again); write only ok tasks')
    .option(
      '--audit-cache <file>',
      'verdicts by content hash (default $T1LAB_HOME/synth-audits.jsonl): a rerun resumes',
    )
    .option('--concurrency <n>', 'audits at once', '1')
    .option(
      '--llm <spec>',
      'propose tasks with a model instead of the families: openai:BASE_URL#MODEL (always audited)',
    )
    .option('--seeds <dir>', 'with --llm: example tasks (folder or pack) shown to the model')
    .option('--api-key-env <var>', 'with --llm: environment variable holding the API key (default OPENAI_API_KEY)')
    .option(
      '--json',
      'print JSON: {pack, count, families, categories, difficulties, rejected, distinct, audit, durationMs}',
    )
    .description('write a pack of tasks synthesized from task families (or proposed by a model), optionally audited')
    .action((opts: SynthOptions) => synthCommand(io, opts));
}

/** The numbers and the audit cache a synth run needs, checked (a usage error, exit 2). */
interface SynthSettings {
  split: Split;
  count: number;
  seed: number;
  minCommands: number;
  concurrency: number;
  cache: AuditCache;
}

type OnProgress = (done: number, total: number, detail: string) => void;

async function synthCommand(io: Io, opts: SynthOptions): Promise<void> {
  const settings = synthSettings(opts);
  const started = performance.now();
  const bar = opts.audit || opts.llm ? progressBar(io, opts.llm ? 'propose' : 'audit', settings.count) : null;
  const onProgress: OnProgress = (done, total, detail) => {
    bar?.setTotal(total);
    bar?.update(done, io.interactive ? detail : withEta(started, done, total, detail));
  };
  const summary = opts.llm
    ? await proposePack(opts, opts.llm, settings, onProgress)
    : await synthesizePack(opts, settings, onProgress);
  bar?.stop();
  if (opts.json) printJson(io, summary);
  else io.out(formatSummary(summary));
  if (summary.count === 0) throw new WorkFailed(opts.json ? '' : 'no task was written');
}

function synthSettings(opts: SynthOptions): SynthSettings {
  if (!opts.out.endsWith('.jsonl')) throw new UsageError(`--out: ${opts.out}: a pack file name ends in .jsonl`);
  if (opts.split !== 'train' && opts.split !== 'eval')
    throw new UsageError(`--split: '${opts.split}' is not train or eval`);
  const split = opts.split as Split;
  const count = intOption('--count', opts.count, 100, 1, 10_000_000);
  const seed = intOption('--seed', opts.seed, 1, 0, 2 ** 31 - 1);
  const minCommands = intOption('--min-commands', opts.minCommands, 0, 0, 100_000);
  const concurrency = intOption('--concurrency', opts.concurrency, 1, 1, 64);
  const cache = opts.auditCache ? new AuditCache(resolve(opts.auditCache)) : AuditCache.in(labDataDir());
  return { split, count, seed, minCommands, concurrency, cache };
}

/** --llm: a model proposes the tasks from example seeds; every one is audited. */
async function proposePack(
  opts: SynthOptions,
  spec: string,
  { split, count, seed, concurrency, cache }: SynthSettings,
  onProgress: OnProgress,
): Promise<SynthSummary> {
  const seeds = opts.seeds;
  if (!seeds) throw new UsageError('--llm needs --seeds DIR (example tasks shown to the model)');
  if (opts.families)
    throw new UsageError('--llm and --families do not mix: the model, not the families, writes the tasks');
  return asUsage(() =>
    proposeWithLlm({
      spec,
      seeds,
      count,
      seed,
      split,
      out: opts.out,
      cache,
      concurrency,
      apiKeyEnv: opts.apiKeyEnv,
      onProgress,
    }),
  );
}

/** The families (all the split allows, or --families) write the tasks; audited with --audit. */
async function synthesizePack(
  opts: SynthOptions,
  { split, count, seed, minCommands, concurrency, cache }: SynthSettings,
  onProgress: OnProgress,
): Promise<SynthSummary> {
  if (opts.seeds) throw new UsageError('--seeds is for --llm');
  const names = opts.families
    ? opts.families
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : null;
  const families = await asUsage(async () => chooseFamilies(ALL_FAMILIES, names, split));
  return runSynth({
    out: opts.out,
    count,
    seed,
    split,
    families,
    minCommands,
    ...(opts.audit ? { audit: { cache, concurrency, onProgress } } : {}),
  });
}
