/**
 * A PPO step's metrics row, built alone from what the step's phases returned: the fixed keys (null where
 * nothing was measured), the aborted-episode bias, dynamic sampling's keys only when it ran, the timings.
 */
import { describe, expect, it } from 'vitest';
import type { RolloutEpisode } from '../../../electron/lab/ppo/rollout-files';
import { ppoMetricsRow, type StepEpisodes } from '../../../electron/lab/ppo/step-metrics';

const episode = (taskId: string, dense: number, o: Partial<RolloutEpisode> = {}): RolloutEpisode =>
  ({
    taskId,
    category: 'core',
    reward: { dense, fraction: dense / 2, binary: dense >= 2 ? 1 : 0 },
    resolved: dense >= 2,
    aborted: false,
    durationMs: 1000,
    generationMs: 400,
    environmentMs: 500,
    turns: 3,
    completionTokens: 40,
    ...o,
  }) as unknown as RolloutEpisode;

const noUpdate = {
  metrics: {},
  optimizerSteps: 0,
  trainedTokens: 0,
  forwardedTokens: 0,
  lossTokens: 0,
  computedTokens: 0,
};
const times = { start: 0, rolloutsDone: 2000, scored: 2500, trained: 4000, checkpointSeconds: 0.25, end: 4500 };

function episodes(
  kept: RolloutEpisode[],
  aborted: RolloutEpisode[] = [],
  dynamic: StepEpisodes['dynamic'] = null,
): StepEpisodes {
  return { all: [...kept, ...aborted], kept, aborted, trained: kept, dynamic };
}

describe('ppoMetricsRow', () => {
  it('means over kept episodes, nulls where the update measured nothing, timings in seconds', () => {
    const row = ppoMetricsRow({
      step: 3,
      tokens: 100,
      lr: 1e-4,
      criticOnly: true,
      reward: 'dense',
      episodes: episodes([episode('a', 2), episode('b', 0)]),
      experience: { metrics: { vf_explained_var: Number.NaN, staleness: 1 } },
      update: noUpdate,
      times,
    });
    expect(row).toMatchObject({
      step: 3,
      tokens: 100,
      loss: 0,
      reward_dense: 1,
      reward_binary: 0.5,
      resolved: 0.5,
      pg_loss: null,
      vf_explained_var: null,
      staleness: 1,
      aborted_share: 0,
      aborted_bias: null,
      critic_warmup: 1,
      policy_version: 3,
      episodes: 2,
    });
    expect(row).toMatchObject({
      time_rollout: 2,
      time_training: 2,
      time_step: 4.5,
      time: { data: 0.5, fwd_bwd: 1.5, checkpoint: 0.25 },
    });
    expect(row).not.toHaveProperty('dynamic_tasks');
  });

  it('aborted episodes: their time share and their reward against the kept ones of the same tasks', () => {
    const kept = [episode('a', 2), episode('b', 1)];
    const aborted = [episode('a', 0, { aborted: true, durationMs: 2000 })];
    const row = ppoMetricsRow({
      step: 1,
      tokens: 0,
      lr: 0,
      criticOnly: false,
      reward: 'dense',
      episodes: episodes(kept, aborted),
      experience: { metrics: {} },
      update: noUpdate,
      times,
    });
    expect(row.aborted_share).toBeCloseTo(0.5);
    expect(row.aborted_bias).toBe(-2);
    expect(row.aborted_episodes).toBe(1);
  });

  it("dynamic sampling's keys when it ran", () => {
    const all = [episode('a', 2), episode('a', 0), episode('b', 1)];
    const row = ppoMetricsRow({
      step: 1,
      tokens: 0,
      lr: 0,
      criticOnly: false,
      reward: 'dense',
      episodes: {
        all,
        kept: all,
        aborted: [],
        trained: all.slice(0, 2),
        dynamic: { tried: 4, rounds: 2, mixedGroups: 1 },
      },
      experience: { metrics: {} },
      update: noUpdate,
      times,
    });
    expect(row).toMatchObject({ dynamic_tasks: 4, dynamic_rounds: 2, dynamic_mixed_groups: 1, episodes_trained: 2 });
    expect(row.sampled_flat_group_share).toBeCloseTo(1 / 3);
  });
});
