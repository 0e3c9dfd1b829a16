/**
 * Advantage estimators over the sampled tokens of an episode. A multi-turn episode's token sequence mixes
 * what the policy sampled (mask 1) with prompt, template and observation tokens (mask 0). The environment
 * acts between turns, not between tokens: GAE runs over the sampled tokens only, in order, as if they were
 * consecutive steps — observation tokens are skipped, never treated as zero-reward steps that would decay
 * the return (with gamma < 1) or bootstrap from values the policy never acted on.
 */

export interface GaeOptions {
  gamma: number;
  lambda: number;
}

export interface StepAdvantages {
  advantages: number[];
  returns: number[];
}

/**
 * GAE over a chain of steps: `rewards[i]` and `values[i]` per step; the chain ends the episode (the value
 * after the last step is 0). delta_i = r_i + gamma V_{i+1} - V_i, A_i = delta_i + gamma lambda A_{i+1},
 * returns = A + V (the value target).
 */
export function gae(rewards: readonly number[], values: readonly number[], options: GaeOptions): StepAdvantages {
  if (rewards.length !== values.length) throw new Error(`gae: ${rewards.length} rewards for ${values.length} values`);
  const n = rewards.length;
  const advantages = new Array<number>(n).fill(0);
  let next = 0;
  let nextValue = 0;
  for (let i = n - 1; i >= 0; i--) {
    const delta = rewards[i]! + options.gamma * nextValue - values[i]!;
    next = delta + options.gamma * options.lambda * next;
    advantages[i] = next;
    nextValue = values[i]!;
  }
  return { advantages, returns: advantages.map((a, i) => a + values[i]!) };
}

/** Indices where mask is 1, in order: the episode's steps. */
export function stepPositions(mask: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < mask.length; i++) if (mask[i] === 1) out.push(i);
  return out;
}

/**
 * GAE over a token sequence with a loss mask: the reward sits on the last masked-in token; values are read
 * at the masked-in positions only. Returns per-position arrays (0 where mask is 0).
 */
export function maskedGae(
  values: ArrayLike<number>,
  mask: ArrayLike<number>,
  reward: number,
  options: GaeOptions,
): { advantages: Float64Array; returns: Float64Array } {
  const steps = stepPositions(mask);
  const stepValues = steps.map((p) => values[p]!);
  const stepRewards = steps.map((_, i) => (i === steps.length - 1 ? reward : 0));
  const r = gae(stepRewards, stepValues, options);
  const advantages = new Float64Array(mask.length);
  const returns = new Float64Array(mask.length);
  steps.forEach((p, i) => {
    advantages[p] = r.advantages[i]!;
    returns[p] = r.returns[i]!;
  });
  return { advantages, returns };
}

/**
 * How a group's centred rewards are scaled: `group` divides by the group's standard deviation (GRPO), `batch`
 * by the standard deviation of the centred rewards over every episode of a group that is not flat (one
 * number for the batch, so groups keep their reward differences' proportions and the update its size), `none`
 * not at all (Dr. GRPO).
 */
export type GroupScale = 'group' | 'batch' | 'none';

/**
 * Group-relative advantages (no critic): each episode's reward minus the mean of its group (the G episodes of
 * one task), scaled as `scale` says (plus eps). A group of one, or one whose rewards are all equal, gives 0:
 * nothing to learn from it.
 */
export function groupAdvantages(
  rewards: readonly number[],
  groups: readonly string[],
  options: { scale: GroupScale; eps?: number } = { scale: 'group' },
): number[] {
  const eps = options.eps ?? 1e-6;
  const byGroup = new Map<string, number[]>();
  groups.forEach((g, i) => byGroup.set(g, [...(byGroup.get(g) ?? []), i]));
  const out = new Array<number>(rewards.length).fill(0);
  const moving: number[] = [];
  for (const members of byGroup.values()) {
    const xs = members.map((i) => rewards[i]!);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const std = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
    if (std > 0) moving.push(...members);
    for (const i of members)
      out[i] =
        options.scale === 'group' ? (std + eps > 0 ? (rewards[i]! - mean) / (std + eps) : 0) : rewards[i]! - mean;
  }
  if (options.scale === 'batch' && moving.length > 0) {
    // The centred rewards have mean 0 within each group, so their spread over the moving episodes is their RMS.
    const std = Math.sqrt(moving.reduce((a, i) => a + out[i]! ** 2, 0) / moving.length);
    for (const i of moving) out[i] = out[i]! / (std + eps);
  }
  return out;
}

/**
 * Whiten advantages over the loss tokens of a batch (mean 0, std 1 over mask-1 entries; others untouched).
 * Returns the statistics before whitening for the metrics.
 */
export function normalizeAdvantages(
  rows: Float64Array[],
  masks: ArrayLike<number>[],
  eps = 1e-8,
): { mean: number; std: number } {
  let n = 0;
  let sum = 0;
  rows.forEach((a, r) => {
    for (let i = 0; i < a.length; i++) {
      if (masks[r]![i] !== 1) continue;
      n++;
      sum += a[i]!;
    }
  });
  if (n === 0) return { mean: 0, std: 0 };
  const mean = sum / n;
  let sq = 0;
  rows.forEach((a, r) => {
    for (let i = 0; i < a.length; i++) if (masks[r]![i] === 1) sq += (a[i]! - mean) ** 2;
  });
  const std = Math.sqrt(sq / n);
  rows.forEach((a, r) => {
    for (let i = 0; i < a.length; i++) if (masks[r]![i] === 1) a[i] = (a[i]! - mean) / (std + eps);
  });
  return { mean, std };
}

/** Whether a group's rewards differ (a group of one has no baseline, so it never disagrees). */
export function rewardsDisagree(rewards: readonly number[]): boolean {
  return rewards.length > 1 && rewards.some((r) => r !== rewards[0]);
}

/**
 * Per episode: whether its group is known to be flat, i.e. has at least two episodes and all got the same
 * reward. A group of one episode (group_size 1, or one kept episode after aborts) is not flat: with GAE its
 * critic baseline still gives it a policy signal; group advantages give it 0 (see `singletonGroups`).
 */
export function flatGroups(rewards: readonly number[], groups: readonly (string | number)[]): boolean[] {
  const byGroup = new Map<string | number, number[]>();
  rewards.forEach((r, i) => byGroup.set(groups[i]!, [...(byGroup.get(groups[i]!) ?? []), r]));
  const flat = new Map([...byGroup].map(([g, rs]) => [g, rs.length > 1 && !rewardsDisagree(rs)]));
  return groups.map((g) => flat.get(g)!);
}

/** Per episode: whether it is alone in its group (a group advantage has no baseline for it and is 0). */
export function singletonGroups(groups: readonly (string | number)[]): boolean[] {
  const count = new Map<string | number, number>();
  for (const g of groups) count.set(g, (count.get(g) ?? 0) + 1);
  return groups.map((g) => count.get(g) === 1);
}

/**
 * Whiten advantages (in place, when `normalize`) over the loss tokens of rows with a policy signal; with
 * `skipFlat`, rows of flat groups (`rowFlat`) get advantage 0 and stay out of the mean and std. Returns the
 * mean and std used (over the same tokens whether or not they were whitened).
 */
export function whitenWithSignal(
  rows: Float64Array[],
  masks: readonly ArrayLike<number>[],
  rowFlat: readonly boolean[],
  o: { normalize: boolean; skipFlat: boolean },
): { mean: number; std: number } {
  const signal: ArrayLike<number>[] = masks.map((m, i) => (o.skipFlat && rowFlat[i] ? Array.from(m, () => 0) : m));
  const stats = normalizeAdvantages(o.normalize ? rows : rows.map((a) => Float64Array.from(a)), signal);
  if (o.skipFlat) rows.forEach((a, i) => rowFlat[i] && a.fill(0));
  return stats;
}
