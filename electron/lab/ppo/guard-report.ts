/**
 * The dense-reward guard of a PPO run folder, at any time (running or finished): read from the steps'
 * `rollouts/step-N/episodes.jsonl` (kept episodes only: aborted ones were not trained on) up to the last
 * step in metrics.jsonl, so that a step still being collected does not count half-done. The PPO stage
 * writes the same report as `guard.json` at each checkpoint, from the history it holds in memory.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MIN_RISE, type AssertionTrend, type CategoryRewards, type DenseGuard } from '../../domain/dense-guard';
import { writeFileAtomic } from '../runs/store';
import { lastMetricRow } from '../training/metrics-tail';
import { assertionPassRates, assertionSplits, isFarmed } from './dense-guard';
import { readRolloutEpisodes, ROLLOUT_FILES, stepDir, type RolloutEpisode } from './rollout-files';

export const GUARD_FILE = 'guard.json';

export interface GuardStep {
  step: number;
  /** The step's kept episodes. */
  episodes: readonly RolloutEpisode[];
}

/**
 * Step files read, kept while their size and time are unchanged: a trained step's episodes do not change, so
 * a page that asks again at every step reads only the new step. Bounded: past this many, it starts over.
 */
const CACHED_STEPS = 20_000;
const cache = new Map<string, { size: number; mtimeMs: number; kept: RolloutEpisode[] }>();

function keptEpisodes(runDir: string, step: number): RolloutEpisode[] {
  const path = join(stepDir(runDir, step), ROLLOUT_FILES.episodes);
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return [];
  }
  const hit = cache.get(path);
  if (hit && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs) return hit.kept;
  const kept = readRolloutEpisodes(runDir, step).filter((e) => !e.aborted);
  if (cache.size >= CACHED_STEPS) cache.clear();
  cache.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, kept });
  return kept;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const STEP_DIR = /^step-(\d+)$/;

/** The before/after halves of the values at the steps where there is one (as the assertion flags split). */
function halves(series: (number | null)[]): { before: number | null; after: number } {
  const present = series.filter((x): x is number => x !== null);
  const half = Math.floor(present.length / 2);
  return { before: half ? mean(present.slice(0, half)) : null, after: mean(present.slice(half)) };
}

function categoryRewards(steps: readonly GuardStep[]): CategoryRewards[] {
  const names = [...new Set(steps.flatMap((s) => s.episodes.map((e) => e.category)))].sort();
  return names.map((category) => {
    const per = steps.map((s) => s.episodes.filter((e) => e.category === category));
    const seriesOf = (f: (e: RolloutEpisode) => number) => per.map((es) => (es.length ? mean(es.map(f)) : null));
    const dense = seriesOf((e) => e.reward?.dense ?? 0);
    const fraction = seriesOf((e) => e.reward?.fraction ?? 0);
    const binary = seriesOf((e) => e.reward?.binary ?? 0);
    return {
      category,
      episodes: per.reduce((n, es) => n + es.length, 0),
      dense: halves(dense),
      fraction: halves(fraction),
      binary: halves(binary),
      series: { dense, fraction, binary },
    };
  });
}

/** The guard over some steps (ascending), each with its kept episodes. */
export function denseGuard(all: readonly GuardStep[], minRise = DEFAULT_MIN_RISE): DenseGuard {
  // A step with no kept episode (all cut at the deadline) says nothing about any assertion.
  const steps = all.filter((s) => s.episodes.length);
  const splits = assertionSplits(steps.map((s) => s.episodes));
  const rates = steps.map((s) => assertionPassRates(s.episodes));
  const categoryOf = new Map(steps.flatMap((s) => s.episodes.map((e) => [e.taskId, e.category] as const)));
  const assertions: AssertionTrend[] = splits.map((s) => {
    const key = `${s.taskId}::${s.assertion}`;
    return {
      ...s,
      category: categoryOf.get(s.taskId) ?? '',
      rise: s.passRateBefore === null ? null : s.passRateAfter - s.passRateBefore,
      flagged: isFarmed(s, minRise),
      series: rates.map((r) => r[key] ?? null),
    };
  });
  const flags = splits
    .filter((s) => isFarmed(s, minRise))
    .map(({ taskId, assertion, passRateBefore, passRateAfter, binaryBefore, binaryAfter }) => ({
      taskId,
      assertion,
      passRateBefore: passRateBefore!,
      passRateAfter,
      binaryBefore: binaryBefore!,
      binaryAfter,
    }));
  // Flagged first, then by rise (unknown rises last), then by name: the table's "top by rise".
  assertions.sort(
    (a, b) =>
      Number(b.flagged) - Number(a.flagged) ||
      (b.rise ?? -Infinity) - (a.rise ?? -Infinity) ||
      `${a.taskId}::${a.assertion}`.localeCompare(`${b.taskId}::${b.assertion}`),
  );
  return {
    steps: steps.map((s) => s.step),
    episodes: steps.reduce((n, s) => n + s.episodes.length, 0),
    minRise,
    flags,
    assertions,
    categories: categoryRewards(steps),
  };
}

/** Steps with rollouts, ascending, through the last trained step (all of them without a metrics.jsonl). */
export function trainedRolloutSteps(runDir: string): number[] {
  const root = join(runDir, 'rollouts');
  if (!existsSync(root)) return [];
  const metrics = join(runDir, 'metrics.jsonl');
  const last = existsSync(metrics) ? (lastMetricRow(metrics)?.step ?? 0) : Infinity;
  return readdirSync(root)
    .map((n) => STEP_DIR.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .filter((s) => s <= last)
    .sort((a, b) => a - b);
}

/** The guard of a PPO run folder now; an LM or SFT run (no rollouts) gives an empty one. */
export function readDenseGuard(runDir: string, minRise = DEFAULT_MIN_RISE): DenseGuard {
  const steps = trainedRolloutSteps(runDir).map((step) => ({ step, episodes: keptEpisodes(runDir, step) }));
  return denseGuard(steps, minRise);
}

export function writeGuardFile(runDir: string, guard: DenseGuard): void {
  writeFileAtomic(join(runDir, GUARD_FILE), JSON.stringify(guard) + '\n');
}
