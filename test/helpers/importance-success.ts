/**
 * What a policy update did to the sampled success of the tasks it trained on, read from the episodes
 * themselves: each episode sampled by the old policy is weighted by how much more (or less) likely the new
 * policy is to sample exactly its tokens, w = exp(Σ log π_new − Σ log π_old) over its sampled tokens, and
 * the self-normalised importance-sampling estimate Σ w·r / Σ w is the new policy's expected reward on the
 * same tasks at the same temperature. It needs no second round of rollouts, so a few PPO steps can be
 * checked in CI: an update along the policy gradient raises it, a flipped sign lowers it, a skipped
 * update leaves it where it was.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCheckpoint } from '../../native/model/checkpoint';
import { TrainingGraphCache } from '../../native/model/graph-cache';
import type { LedgerSample, Trajectory } from '../../electron/domain/trajectory';
import { RolloutEpisode, ROLLOUT_FILES, stepDir } from '../../electron/lab/ppo/rollout-files';
import { rowFromSample, type TrainRow } from '../../electron/rl/batch';
import { scoreRows, type Params } from '../../electron/rl/scoring';

export interface ImportanceEstimate {
  episodes: number;
  /** Per episode: resolved, dense reward and the new-minus-old log-probability of its sampled tokens. */
  rows: { resolved: boolean; dense: number; logRatio: number }[];
  /** Under the policy that sampled them (plain means) and the estimate under the new one. */
  resolved: { before: number; after: number };
  dense: { before: number; after: number };
}

/** Σ over each row's loss positions of its log-probs under `params` (R3: the sampler's routing forced). */
async function sequenceLogprobs(
  dir: string,
  params: Params,
  rows: readonly TrainRow[],
  temperature: number,
): Promise<number[]> {
  const point = loadCheckpoint(dir);
  const cache = new TrainingGraphCache(point.config, { provider: 'cpu' });
  try {
    const out: number[] = [];
    for (let i = 0; i < rows.length; i += 4) {
      const chunk = rows.slice(i, i + 4);
      const scored = await scoreRows(point.config, cache, params, chunk, true, undefined, 4, temperature);
      chunk.forEach((r, b) => out.push(r.lossMask.reduce((s, m, t) => (m === 1 ? s + scored.logprobs[b]![t]! : s), 0)));
    }
    return out;
  } finally {
    await cache.clear();
  }
}

/** The estimate for the kept episodes of `step` of the PPO run in `runDir`, old policy `before`, new `after`. */
export async function importanceSuccess(
  runDir: string,
  step: number,
  before: string,
  after: string,
  temperature: number,
): Promise<ImportanceEstimate> {
  const dir = stepDir(runDir, step);
  const episodes = readFileSync(join(dir, ROLLOUT_FILES.episodes), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => RolloutEpisode.parse(JSON.parse(l)))
    .filter((e) => !e.aborted && e.reward !== null);
  const rows: TrainRow[] = [];
  const episodeOf: number[] = [];
  episodes.forEach((e, ei) => {
    const t = JSON.parse(readFileSync(join(runDir, e.dir, 'trajectory.json'), 'utf8')) as Trajectory;
    for (const sample of t.ledger?.samples ?? ([] as LedgerSample[])) {
      if (!sample.mask.some((m) => m === 1) || sample.ids.length < 2) continue;
      rows.push(rowFromSample(sample));
      episodeOf.push(ei);
    }
  });
  const old = await sequenceLogprobs(before, loadCheckpoint(before).parameters, rows, temperature);
  const now = await sequenceLogprobs(before, loadCheckpoint(after).parameters, rows, temperature);
  const logRatio = episodes.map(() => 0);
  rows.forEach((_, i) => (logRatio[episodeOf[i]!]! += now[i]! - old[i]!));
  const per = episodes.map((e, i) => ({ resolved: e.resolved, dense: e.reward!.dense, logRatio: logRatio[i]! }));
  // Self-normalised, in log space for safety: weights relative to the largest.
  const top = Math.max(...per.map((p) => p.logRatio));
  const w = per.map((p) => Math.exp(p.logRatio - top));
  const sumW = w.reduce((a, b) => a + b, 0);
  const weighted = (f: (p: (typeof per)[number]) => number) => per.reduce((s, p, i) => s + w[i]! * f(p), 0) / sumW;
  const mean = (f: (p: (typeof per)[number]) => number) => per.reduce((s, p) => s + f(p), 0) / per.length;
  return {
    episodes: per.length,
    rows: per,
    resolved: { before: mean((p) => Number(p.resolved)), after: weighted((p) => Number(p.resolved)) },
    dense: { before: mean((p) => p.dense), after: weighted((p) => p.dense) },
  };
}
