/**
 * The training reward of an episode, from the verifier's three rewards (always all logged), and its optional
 * normalisation: per batch, or per task group (the G episodes of one task).
 */
import type { Reward } from '../domain/tasks';

export type RewardKind = 'dense' | 'fraction' | 'binary';
export type RewardNormalization = 'none' | 'batch' | 'group';

/** The reward that trains. An episode without a verifier verdict (sandbox error, aborted) scores 0. */
export function trainingReward(reward: Reward | null, kind: RewardKind): number {
  if (!reward) return 0;
  return reward[kind];
}

/** Normalise rewards to mean 0 / std 1 over the batch or within each group; 'none' returns a copy. */
export function normalizeRewards(
  rewards: readonly number[],
  groups: readonly string[],
  mode: RewardNormalization,
  eps = 1e-6,
): number[] {
  if (mode === 'none') return [...rewards];
  const keys = mode === 'batch' ? rewards.map(() => '') : groups;
  const byGroup = new Map<string, number[]>();
  keys.forEach((g, i) => byGroup.set(g, [...(byGroup.get(g) ?? []), i]));
  const out = [...rewards];
  for (const members of byGroup.values()) {
    const xs = members.map((i) => rewards[i]!);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const std = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
    for (const i of members) out[i] = std + eps > 0 ? (rewards[i]! - mean) / (std + eps) : 0;
  }
  return out;
}
