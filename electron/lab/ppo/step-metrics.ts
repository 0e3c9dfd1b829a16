/**
 * A PPO step's row of metrics.jsonl (and the TensorBoard scalars): the fixed keys first, then the
 * rewards by category, the episodes, the update's cost and the step's timings. Pure: built from what the
 * step's phases returned.
 */
import type { MetricsRow } from '../../domain/training';
import { rewardsByCategory } from './dense-guard';
import type { Experience } from './experience';
import type { RolloutEpisode } from './rollout-files';
import type { PpoSection } from '../training/config/ppo';
import type { UpdateResult } from './update';

/** A step's episodes by fate: `kept` finished, `aborted` were cut at the step's deadline, `trained` feed the update. */
export interface StepEpisodes {
  all: readonly RolloutEpisode[];
  kept: RolloutEpisode[];
  aborted: RolloutEpisode[];
  trained: RolloutEpisode[];
  /** With dynamic sampling: tasks tried, rounds drawn, groups that disagree. */
  dynamic: { tried: number; rounds: number; mixedGroups: number } | null;
}

/** The step's phase boundaries (performance.now() in ms) and the checkpoint's seconds. */
export interface StepTimes {
  start: number;
  rolloutsDone: number;
  scored: number;
  trained: number;
  checkpointSeconds: number;
  end: number;
}

export interface StepMetricsInput {
  step: number;
  /** Tokens trained on since the run began. */
  tokens: number;
  lr: number;
  criticOnly: boolean;
  /** The reward the run trains on (`ppo.reward`): what aborted_bias compares. */
  reward: PpoSection['reward'];
  episodes: StepEpisodes;
  experience: Pick<Experience, 'metrics'>;
  update: UpdateResult;
  times: StepTimes;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const seconds = (ms: number) => ms / 1000;

export function ppoMetricsRow(x: StepMetricsInput): MetricsRow {
  const { step, episodes, update: upd, times } = x;
  const exp = x.experience.metrics;
  const { kept, aborted, trained } = episodes;
  const busy = seconds(times.trained - times.rolloutsDone);
  return {
    step,
    tokens: x.tokens,
    loss: upd.metrics.loss ?? 0,
    lr: x.lr,
    grad_norm: upd.metrics.grad_norm ?? 0,
    tokens_per_s: upd.trainedTokens / Math.max(busy, 1e-9),
    time: {
      data: seconds(times.scored - times.rolloutsDone),
      fwd_bwd: seconds(times.trained - times.scored),
      optimizer: 0,
      checkpoint: times.checkpointSeconds,
      eval: 0,
    },
    wall_time: Date.now() / 1000,
    ...fixedKeys(x),
    // More.
    reward_fraction: mean(kept.map((e) => e.reward?.fraction ?? 0)),
    ...rewardsByCategory(kept),
    aborted_episodes: aborted.length,
    aborted_bias: abortedBias(episodes, x.reward),
    episodes: kept.length,
    episodes_trained: trained.length,
    ...(episodes.dynamic
      ? {
          dynamic_tasks: episodes.dynamic.tried,
          dynamic_rounds: episodes.dynamic.rounds,
          dynamic_mixed_groups: episodes.dynamic.mixedGroups,
          sampled_flat_group_share: kept.length ? (kept.length - trained.length) / kept.length : 0,
        }
      : {}),
    episode_turns: mean(kept.map((e) => e.turns)),
    episode_tokens: mean(kept.map((e) => e.completionTokens)),
    vf_clipfrac: upd.metrics.vf_clipfrac ?? null,
    kl_ref: upd.metrics.kl_ref ?? null,
    aux_loss: upd.metrics.aux_loss ?? null,
    grad_clipped_share: upd.metrics.grad_clipped_share ?? null,
    skipped_steps: upd.metrics.skipped_steps ?? 0,
    optimizer_steps: upd.optimizerSteps,
    // What the update cost in positions, over its epochs: carrying a loss, trained (real positions of the
    // sequences), forwarded (real positions computed: a shared prompt prefix once), computed (with padding).
    update_loss_tokens: upd.lossTokens,
    update_trained_tokens: upd.trainedTokens,
    update_forwarded_tokens: upd.forwardedTokens,
    update_computed_tokens: upd.computedTokens,
    critic_warmup: x.criticOnly ? 1 : 0,
    policy_version: step,
    ...timings(episodes, times),
    ...Object.fromEntries(Object.entries(exp).filter(([k]) => k !== 'vf_explained_var')),
  };
}

/** The fixed keys: present in every row, null where the step had nothing to measure. */
function fixedKeys(x: StepMetricsInput): Record<string, number | null> {
  const { kept } = x.episodes;
  const upd = x.update.metrics;
  const exp = x.experience.metrics;
  const allTime = x.episodes.all.reduce((n, e) => n + e.durationMs, 0);
  const abortedTime = x.episodes.aborted.reduce((n, e) => n + e.durationMs, 0);
  return {
    reward_dense: mean(kept.map((e) => e.reward?.dense ?? 0)),
    reward_binary: mean(kept.map((e) => e.reward?.binary ?? 0)),
    resolved: mean(kept.map((e) => (e.resolved ? 1 : 0))),
    pg_loss: upd.pg_loss ?? null,
    pg_clipfrac: upd.pg_clipfrac ?? null,
    ppo_kl: upd.ppo_kl ?? null,
    entropy: upd.entropy ?? null,
    vf_loss: upd.vf_loss ?? null,
    vf_explained_var:
      exp.vf_explained_var !== undefined && Number.isFinite(exp.vf_explained_var) ? exp.vf_explained_var : null,
    tis_weight_mean: exp.tis_weight_mean ?? null,
    train_infer_gap_r3: exp.train_infer_gap_r3 ?? null,
    train_infer_gap_free: exp.train_infer_gap_free ?? null,
    loss_drift: exp.loss_drift ?? 0,
    routing_agreement: exp.routing_agreement ?? null,
    staleness: exp.staleness ?? 0,
    aborted_share: allTime > 0 ? abortedTime / allTime : 0,
  };
}

/** Mean reward of the aborted episodes minus that of the kept ones on the same tasks (null: none aborted). */
function abortedBias(episodes: StepEpisodes, reward: PpoSection['reward']): number | null {
  const { kept, aborted } = episodes;
  if (!aborted.length) return null;
  const rewardOf = (e: RolloutEpisode) => e.reward?.[reward] ?? 0;
  const keptOnAbortedTasks = kept.filter((e) => aborted.some((a) => a.taskId === e.taskId));
  return mean(aborted.map(rewardOf)) - mean(keptOnAbortedTasks.map(rewardOf));
}

function timings(episodes: StepEpisodes, times: StepTimes): Record<string, number> {
  const { kept, all } = episodes;
  return {
    time_rollout: seconds(times.rolloutsDone - times.start),
    time_generation: mean(kept.map((e) => e.generationMs)) / 1000,
    time_environment: mean(kept.map((e) => e.environmentMs)) / 1000,
    time_training: seconds(times.trained - times.rolloutsDone),
    // The step's wall time and the episodes' summed generation/environment time (all of them, aborted
    // too): with concurrent episodes these split time_rollout by share (npm run bench -- ppo).
    time_step: seconds(times.end - times.start),
    time_generation_sum: all.reduce((n, e) => n + e.generationMs, 0) / 1000,
    time_environment_sum: all.reduce((n, e) => n + e.environmentMs, 0) / 1000,
  };
}
