/**
 * The reproduction's sampled evaluation: each trained model run K times per task at PPO's own temperature,
 * reported as avg@K (the mean of per-task success shares, what a policy-gradient step raises) and compared
 * paired by task. A greedy evaluation, one attempt per task, sees only tasks whose greedy outcome flips; a
 * PPO step that moves a task's success share from 3/8 to 5/8 is invisible there and visible here.
 */
import type { AvgAtK, EpisodeRecord } from '../../domain/runs';
import { computeStats } from '../runs/stats';
import { compareRuns } from '../stats/compare';

/** The models the sampled evaluation covers. The base model resolves nothing greedily and its sampled
 * episodes run the whole budget: K attempts of it would cost the most and say the least. */
export const SAMPLED_MODELS = ['sft', 'rl-dense', 'rl-binary'] as const;
export type SampledModel = (typeof SAMPLED_MODELS)[number];

/** The pairs the reproduction tests, as it does greedily: (A, B) reads "B vs A". */
export const SAMPLED_PAIRS: readonly (readonly [SampledModel, SampledModel])[] = [
  ['sft', 'rl-dense'],
  ['sft', 'rl-binary'],
  ['rl-binary', 'rl-dense'],
];

export interface SampledRow {
  model: SampledModel;
  suite: string;
  attempts: number;
  temperature: number;
  avgAtK: AvgAtK;
  episodes: number;
}

export interface SampledTest {
  comparison: string;
  suite: string;
  attempts: number;
  temperature: number;
  /** Mean per-task success-share difference (B − A) and its paired task-bootstrap interval. */
  diff: number;
  ci95: [number, number];
  /** The paired design's test (a sign-flip permutation test on the per-task share differences). */
  test: { name: string; p: number };
  rewardDiff: number;
  rewardCi95: [number, number];
}

/** The sampled runs' eval arguments: the greedy ones with the temperature and attempts replaced. */
export function sampledEvalArgs(evalArgs: readonly string[], temperature: number, attempts: number): string[] {
  const kept: string[] = [];
  for (let i = 0; i < evalArgs.length; i++) {
    const arg = evalArgs[i]!;
    if (arg === '--temperature' || arg === '--attempts') i++;
    else kept.push(arg);
  }
  return [...kept, '--temperature', String(temperature), '--attempts', String(attempts)];
}

export function sampledRow(
  model: SampledModel,
  suite: string,
  attempts: number,
  temperature: number,
  episodes: readonly EpisodeRecord[],
): SampledRow {
  const avg = computeStats(episodes).avgAtK;
  if (!avg) throw new Error(`the sampled evaluation of ${model} on ${suite} has no episodes`);
  return { model, suite, attempts, temperature, avgAtK: avg, episodes: episodes.length };
}

export function sampledTest(
  pair: readonly [SampledModel, SampledModel],
  suite: string,
  attempts: number,
  temperature: number,
  episodesA: readonly EpisodeRecord[],
  episodesB: readonly EpisodeRecord[],
): SampledTest {
  const [a, b] = pair;
  const c = compareRuns({ run: a, episodes: episodesA }, { run: b, episodes: episodesB });
  return {
    comparison: `${b} vs ${a}`,
    suite,
    attempts,
    temperature,
    diff: c.diff,
    ci95: c.diffCi95,
    test: c.test,
    rewardDiff: c.reward.diff,
    rewardCi95: c.reward.ci95,
  };
}
