/**
 * PPO's experience and update on hand-made episodes, without sandboxes: trajectory.json files holding one
 * ledger sample each (prompt tokens, then sampled tokens with their sampler log-probs), the rollout
 * episodes that point at them, and the PPO section with the defaults of a run config. The math tests of
 * issue 21 drive buildExperience and ppoUpdate on these with a tiny model.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RolloutEpisode } from '../../electron/lab/ppo/rollout-files';
import { parseRunConfig } from '../../electron/lab/training/config/run-config';
import type { PpoSection } from '../../electron/lab/training/config/ppo';

export interface HandEpisode {
  key: string;
  group: string;
  /** Dense reward (fraction and binary follow from it). */
  reward: number;
  prompt: number[];
  sampled: number[];
  /** The sampler's log-probs of `sampled` (default: 0). */
  samplerLogprobs?: number[];
  temperature?: number;
  aborted?: boolean;
}

/** The PPO section as a config file with these keys parses it (every other key at its default). */
export function ppoSection(keys: Record<string, unknown> = {}): PpoSection {
  return parseRunConfig({ stage: 'ppo', model: { checkpoint: 'x' }, data: { path: 'x' }, ppo: keys }).ppo;
}

/** Writes each episode's trajectory.json under runDir/episodes/KEY and returns the rollout episodes. */
export function writeHandEpisodes(runDir: string, episodes: readonly HandEpisode[]): RolloutEpisode[] {
  return episodes.map((e) => {
    const dir = join('episodes', e.key);
    mkdirSync(join(runDir, dir), { recursive: true });
    const ids = [...e.prompt, ...e.sampled];
    const mask = ids.map((_, i) => (i >= e.prompt.length ? 1 : 0));
    const logprobs = ids.map((_, i) => (i >= e.prompt.length ? (e.samplerLogprobs?.[i - e.prompt.length] ?? 0) : null));
    const ledger = {
      samples: [{ ids, mask, logprobs, segments: [] }],
      counters: { clean: 0, repair: 0, fork: 0, maskedSampled: 0, lossDrift: 0 },
    };
    writeFileSync(join(runDir, dir, 'trajectory.json'), JSON.stringify({ ledger }));
    return {
      key: e.key,
      taskId: e.group,
      category: 'test',
      group: e.group,
      attempt: 0,
      policyVersion: 0,
      ...(e.temperature !== undefined ? { temperature: e.temperature } : {}),
      reward: { dense: e.reward, fraction: e.reward / 4, binary: e.reward >= 4 ? 1 : 0 },
      resolved: e.reward >= 4,
      assertions: [],
      turns: 1,
      completionTokens: e.sampled.length,
      stopReason: 'submitted',
      error: null,
      aborted: e.aborted ?? false,
      durationMs: 1,
      generationMs: 1,
      environmentMs: 0,
      dir,
    };
  });
}
