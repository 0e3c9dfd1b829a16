/**
 * From a step's kept episodes to PPO's training sequences: the ledger's samples as the trainer reads them
 * (exact ids, loss masks, sampler log-probs, the sampler's routing of every token), the independent
 * loss-drift check, old log-probs and values scored on the exact sequences with the routing forced (R3) or
 * free, the train-inference gap both ways with routing agreement per layer, rewards, advantages (GAE over
 * sampled tokens, or group-relative), TIS weights, and optionally the reference policy's log-probs (KL).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelConfig } from '../../../native/model/config';
import type { TrainingGraphCache } from '../../../native/model/graph-cache';
import { checkLossDrift } from '../../agent/tokens/drift';
import type { LedgerCounters, LedgerSample, Trajectory } from '../../domain/trajectory';
import { flatGroups, groupAdvantages, maskedGae, singletonGroups, whitenWithSignal } from '../../rl/advantages';
import { rowFromSample, type TrainRow } from '../../rl/batch';
import { gapOf, routingAgreement } from '../../rl/gap';
import { normalizeRewards, trainingReward } from '../../rl/rewards';
import { scoreRows, type Params, type Scored } from '../../rl/scoring';
import { explainedVariance, tisWeights, type GapStats } from '../../rl/token-metrics';
import {
  destandardize,
  initialValueNorm,
  standardize,
  updateValueNorm,
  valueNormStats,
  VALUE_NORM_IDENTITY,
  type ValueNormState,
} from '../../rl/value-norm';
import { LabError } from '../../ipc/common/errors';
import { microBatchRows, type TokenSequence } from '../training/batching';
import type { PpoSection } from '../training/config/ppo';
import type { RolloutEpisode } from './rollout-files';

export interface SampleRef {
  episode: string;
  sample: number;
  policyVersion: number;
  row: TrainRow;
}

export interface Experience {
  sequences: TokenSequence[];
  refs: SampleRef[];
  /** Per sequence, per position: what samples.jsonl stores for the UI. */
  perToken: { old: number[]; values: number[]; advantages: number[]; returns: number[]; tis: number[] }[];
  metrics: Record<string, number>;
  lossTokens: number;
  /** The temperature the episodes were sampled at (the update trains the same tempered policy). */
  temperature: number;
  /** The value-target statistics after this batch (`value_norm = "running"`; the run's checkpoint keeps them). */
  valueNorm: ValueNormState;
  /** Settings that cannot learn from this batch, said loudly (the run logs each). */
  warnings: string[];
}

export interface ExperienceInput {
  runDir: string;
  model: ModelConfig;
  cache: TrainingGraphCache;
  params: Params;
  reference: Params | null;
  ppo: PpoSection;
  /** Rows per scoring batch. */
  rows: number;
  /** Version of `params` (updates applied): staleness = version - the sampler's version. */
  version: number;
  /** Weights of recent earlier versions (asynchronous rollouts sample with one), for the gap. */
  paramsByVersion?: ReadonlyMap<number, Params>;
  episodes: readonly RolloutEpisode[];
  /** The value-target statistics before this batch (default: none yet). */
  valueNorm?: ValueNormState;
}

function readTrajectory(runDir: string, e: RolloutEpisode): Trajectory {
  return JSON.parse(readFileSync(join(runDir, e.dir, 'trajectory.json'), 'utf8')) as Trajectory;
}

/** The input with the episodes' one sampling temperature, which every scoring pass uses. */
type ScoringInput = ExperienceInput & { temperature: number };

async function scoreAll(
  x: ScoringInput,
  rows: readonly TrainRow[],
  params: Params,
  r3: boolean,
  fallback: (BigInt64Array | undefined)[] = [],
): Promise<Scored[]> {
  const out: Scored[] = [];
  for (let i = 0, c = 0; i < rows.length; i += x.rows, c++) {
    const chunk = rows.slice(i, i + x.rows);
    out.push(
      await scoreRows(
        x.model,
        x.cache,
        params,
        chunk,
        r3,
        fallback[c],
        microBatchRows(chunk.length, x.rows),
        x.temperature,
      ),
    );
  }
  return out;
}

/** The one temperature the episodes were sampled at (older runs recorded none: the config's). */
export function episodesTemperature(
  episodes: readonly Pick<RolloutEpisode, 'key' | 'temperature'>[],
  configured: number,
): number {
  const temps = new Set(episodes.map((e) => e.temperature ?? configured));
  if (temps.size > 1)
    throw new LabError(
      'INVALID_PARAMS',
      `the step's episodes were sampled at different temperatures (${[...temps].join(', ')}): the trainer scores one tempered policy per batch`,
    );
  return temps.size ? [...temps][0]! : configured;
}

const flat = <T>(chunks: T[][]): T[] => chunks.flat();

export async function buildExperience(input: ExperienceInput): Promise<Experience> {
  const temperature = episodesTemperature(
    input.episodes.filter((e) => !e.aborted),
    input.ppo.temperature,
  );
  const x = { ...input, temperature };
  const warnings: string[] = [];
  const valueNormIn = x.valueNorm ?? initialValueNorm();
  const trainable = x.episodes.filter((e) => !e.aborted);
  const { refs, episodeOf, metrics } = readSamples(x, trainable);
  const rows = refs.map((r) => r.row);
  if (rows.length === 0)
    return { sequences: [], refs, perToken: [], metrics, lossTokens: 0, temperature, valueNorm: valueNormIn, warnings };

  const r3 = x.ppo.r3 === 'on';
  const current = await measureGap(x, refs, metrics);
  // PPO's old log-probs and values: the current weights (the trainer's pi_old), routing replayed.
  const free = current?.free ?? null;
  const old = current ? (current.replayed ?? current.free!) : await scoreAll(x, rows, x.params, r3);
  const oldLogp = flat(old.map((sc) => sc.logprobs));
  // The value head's outputs, and the same in reward units (it predicts standardised returns with value_norm).
  const headValues = flat(old.map((sc) => sc.values));
  const running = x.ppo.value_norm === 'running';
  // Rewards: one per kept episode; group = its task.
  const rewardsRaw = trainable.map((e) => trainingReward(e.reward, x.ppo.reward));
  const rewards = normalizeRewards(
    rewardsRaw,
    trainable.map((e) => e.group),
    x.ppo.reward_norm,
  );
  // Before any statistics exist, the head's outputs mean nothing in reward units: seed them with this batch's
  // episode rewards (the returns of gamma = lambda = 1), so that even the first step is scale-free.
  const seeded = running && valueNormIn.weight === 0;
  const normState = seeded
    ? updateValueNorm(
        valueNormIn,
        rows.map((r, i) => r.lossMask.map(() => rewards[episodeOf[i]!]!)),
        rows.map((r) => r.lossMask),
      )
    : valueNormIn;
  const normBefore = running ? valueNormStats(normState) : VALUE_NORM_IDENTITY;
  const oldValues = headValues.map((row) => row.map((v) => destandardize(v, normBefore)));
  const refLogp =
    x.reference && x.ppo.kl_coef > 0
      ? flat((await scoreAll(x, rows, x.reference, r3, free?.map((s) => s.experts) ?? [])).map((s) => s.logprobs))
      : null;

  const { advantages, returns } = advantagesAndReturns(x, {
    rows,
    episodeOf,
    trainable,
    rewards,
    oldValues,
    metrics,
    warnings,
  });
  const masks = rows.map((r) => r.lossMask);
  metrics.vf_explained_var = explainedVariance(oldValues, returns, masks);
  whitenAdvantages(x, { advantages, masks, episodeOf, trainable, rewardsRaw, metrics, warnings });
  const returnsFlat = returns.flatMap((r, i) => Array.from(r).filter((_, t) => masks[i]![t] === 1));
  metrics.return_mean = returnsFlat.length ? returnsFlat.reduce((a, b) => a + b, 0) / returnsFlat.length : 0;
  // Value targets: standardised with the statistics updated by this batch's returns (value_norm).
  const valueNorm = running && !seeded ? updateValueNorm(normState, returns, masks) : normState;
  const normAfter = running ? valueNormStats(valueNorm) : VALUE_NORM_IDENTITY;
  const targets = returns.map((r) => r.map((v) => standardize(v, normAfter)));
  metrics.value_norm_mean = normAfter.mean;
  metrics.value_norm_std = normAfter.std;

  const { sequences, perToken, lossTokens } = assembleSequences(x, {
    refs,
    free,
    oldLogp,
    oldValues,
    headValues,
    refLogp,
    advantages,
    returns,
    targets,
    metrics,
  });
  return { sequences, refs, perToken, metrics, lossTokens, temperature, valueNorm, warnings };
}

/** The ledger's loss-bearing samples of the kept episodes, the independent loss-drift check, and the ledger's counters. */
function readSamples(
  x: ExperienceInput,
  trainable: readonly RolloutEpisode[],
): { refs: SampleRef[]; episodeOf: number[]; metrics: Record<string, number> } {
  const refs: SampleRef[] = [];
  const counters: LedgerCounters = {
    clean: 0,
    repair: 0,
    fork: 0,
    maskedSampled: 0,
    lossDrift: 0,
    exact: 0,
    retokenized: 0,
  };
  let drift = 0;
  let unrecorded = 0;
  const episodeOf: number[] = [];
  trainable.forEach((e, ei) => {
    const t = readTrajectory(x.runDir, e);
    if (!t.ledger) return;
    for (const key of Object.keys(counters) as (keyof LedgerCounters)[])
      counters[key] = (counters[key] ?? 0) + (t.ledger.counters[key] ?? 0);
    t.ledger.samples.forEach((sample: LedgerSample, si) => {
      if (!sample.mask.some((m) => m === 1) || sample.ids.length < 2) return;
      const report = checkLossDrift(sample);
      drift += report.drift;
      unrecorded += report.unrecorded;
      refs.push({ episode: e.key, sample: si, policyVersion: e.policyVersion, row: rowFromSample(sample) });
      episodeOf.push(ei);
    });
  });
  const metrics: Record<string, number> = {
    loss_drift: drift,
    loss_drift_unrecorded: unrecorded,
    ledger_clean: counters.clean,
    ledger_repair: counters.repair,
    ledger_fork: counters.fork,
    ledger_exact: counters.exact ?? 0,
    ledger_retokenized: counters.retokenized ?? 0,
    ledger_masked_sampled: counters.maskedSampled,
    samples: refs.length,
  };
  return { refs, episodeOf, metrics };
}

/**
 * The train-inference gap (R3 and free routing) and routing agreement per layer, into `metrics`. The gap
 * compares the trainer with the sampler at the same weights: rows sampled by an older policy version
 * (asynchronous rollouts) are scored for it with that version's weights. Returns the current version's
 * scores when they cover every row (PPO's old log-probs then reuse them), else null.
 */
async function measureGap(
  x: ScoringInput,
  refs: readonly SampleRef[],
  metrics: Record<string, number>,
): Promise<{ free: Scored[] | null; replayed: Scored[] | null } | null> {
  const L = x.model.num_hidden_layers;
  const k = x.model.num_experts_per_tok;
  const r3 = x.ppo.r3 === 'on';
  const rows = refs.map((r) => r.row);
  const byVersion = new Map<number, number[]>();
  refs.forEach((r, i) => byVersion.set(r.policyVersion, [...(byVersion.get(r.policyVersion) ?? []), i]));
  const gapR3: number[][] = [];
  const gapFree: number[][] = [];
  const gapRows: TrainRow[] = [];
  const agreement = new Array<number>(L).fill(0);
  let agreementChunks = 0;
  let current: { free: Scored[] | null; replayed: Scored[] | null } | null = null;
  for (const [version, members] of byVersion) {
    const weights = version === x.version ? x.params : (x.paramsByVersion?.get(version) ?? null);
    if (!weights) continue;
    const vRows = members.map((i) => rows[i]!);
    const free = x.ppo.measure_free_gap || !r3 ? await scoreAll(x, vRows, weights, false) : null;
    const replayed = r3 ? await scoreAll(x, vRows, weights, true, free?.map((sc) => sc.experts) ?? []) : null;
    if (version === x.version && members.length === rows.length) current = { free, replayed };
    gapRows.push(...vRows);
    if (replayed) gapR3.push(...flat(replayed.map((sc) => sc.logprobs)));
    if (free) {
      gapFree.push(...flat(free.map((sc) => sc.logprobs)));
      free.forEach((sc, c) => {
        const a = routingAgreement(vRows.slice(c * x.rows, (c + 1) * x.rows), sc.packed, sc.experts, L, k);
        if (a.every(Number.isFinite)) {
          a.forEach((v, l) => (agreement[l]! += v));
          agreementChunks++;
        }
      });
    }
  }
  if (gapR3.length) {
    const g = gapOf(gapRows, gapR3);
    Object.assign(metrics, { train_infer_gap_r3: g.mean, train_infer_gap_r3_max: g.max });
  }
  if (gapFree.length) {
    const g: GapStats = gapOf(gapRows, gapFree);
    Object.assign(metrics, { train_infer_gap_free: g.mean, train_infer_gap_free_max: g.max });
  }
  if (agreementChunks) {
    agreement.forEach((v, l) => (metrics[`routing_agreement_l${l}`] = v / agreementChunks));
    metrics.routing_agreement = agreement.reduce((a, b) => a + b, 0) / L / agreementChunks;
  }
  metrics.gap_samples = gapRows.length;
  return current;
}

/** What the advantage phases read: the rows, each row's episode (index into `trainable`), the rewards, the old values in reward units. */
interface AdvantageInput {
  rows: readonly TrainRow[];
  episodeOf: readonly number[];
  trainable: readonly RolloutEpisode[];
  rewards: readonly number[];
  oldValues: readonly number[][];
  metrics: Record<string, number>;
  warnings: string[];
}

/** Advantages and returns per position of each row: group-relative (`advantage = "group"`), or GAE per episode. */
function advantagesAndReturns(
  x: ExperienceInput,
  a: AdvantageInput,
): { advantages: Float64Array[]; returns: Float64Array[] } {
  const { rows, episodeOf, trainable, rewards } = a;
  const advantages = rows.map((r) => new Float64Array(r.lossMask.length));
  const returns = rows.map((r) => new Float64Array(r.lossMask.length));
  if (x.ppo.advantage === 'group') {
    const groups = trainable.map((e) => e.group);
    const adv = groupAdvantages([...rewards], groups, { scale: x.ppo.group_scale });
    const singles = singletonGroups(groups).filter(Boolean).length;
    a.metrics.singleton_group_share = trainable.length ? singles / trainable.length : 0;
    if (singles > 0)
      a.warnings.push(
        `${singles} of ${trainable.length} kept episodes are alone in their group (aborted or failed group mates): a group advantage has no baseline for them, they get 0 and do not train the policy`,
      );
    rows.forEach((r, i) =>
      r.lossMask.forEach((m, t) => {
        if (m !== 1) return;
        advantages[i]![t] = adv[episodeOf[i]!]!;
        returns[i]![t] = rewards[episodeOf[i]!]!;
      }),
    );
    return { advantages, returns };
  }
  // GAE per episode over its samples' loss tokens in order (a fork's samples are one chain of steps).
  const byEpisode = new Map<number, number[]>();
  episodeOf.forEach((e, i) => byEpisode.set(e, [...(byEpisode.get(e) ?? []), i]));
  for (const [e, members] of byEpisode) {
    const values = members.flatMap((i) => a.oldValues[i]!);
    const mask = members.flatMap((i) => rows[i]!.lossMask);
    const g = maskedGae(values, mask, rewards[e]!, { gamma: x.ppo.gamma, lambda: x.ppo.lambda });
    let offset = 0;
    for (const i of members) {
      const n = rows[i]!.lossMask.length;
      advantages[i]!.set(g.advantages.subarray(offset, offset + n));
      returns[i]!.set(g.returns.subarray(offset, offset + n));
      offset += n;
    }
  }
  return { advantages, returns };
}

/**
 * Flat groups and whitening, in place. Groups (a task's G episodes) whose raw rewards are all equal carry no
 * policy signal (DAPO's "dynamic sampling" filters them out); their GAE advantages would be the critic's
 * error alone, which whitening scales up to unit size. Group advantages are already standardised within
 * each group: whitening them again over the batch's tokens would reweight groups by their episodes'
 * lengths. Only GAE advantages are whitened.
 */
function whitenAdvantages(
  x: ExperienceInput,
  a: {
    advantages: Float64Array[];
    masks: number[][];
    episodeOf: readonly number[];
    trainable: readonly RolloutEpisode[];
    rewardsRaw: number[];
    metrics: Record<string, number>;
    warnings: string[];
  },
): void {
  const { trainable, metrics } = a;
  const flatGroup = flatGroups(
    a.rewardsRaw,
    trainable.map((e) => e.group),
  );
  metrics.flat_group_share = trainable.length ? trainable.filter((_, e) => flatGroup[e]).length / trainable.length : 0;
  const whiten = x.ppo.normalize_advantages && x.ppo.advantage === 'gae';
  const advStats = whitenWithSignal(
    a.advantages,
    a.masks,
    a.episodeOf.map((e) => flatGroup[e]!),
    { normalize: whiten, skipFlat: x.ppo.flat_groups === 'skip' },
  );
  if (trainable.length > 0 && metrics.flat_group_share === 1 && x.ppo.flat_groups === 'skip')
    a.warnings.push(
      `every group of this step got equal rewards (${trainable.length} kept episodes): no policy signal, only the critic trains`,
    );
  metrics.advantage_mean = advStats.mean;
  metrics.advantage_std = advStats.std;
}

/** TIS weights, staleness and the training sequences (with the replayed routing under R3), plus their metrics. */
function assembleSequences(
  x: ScoringInput,
  a: {
    refs: readonly SampleRef[];
    free: Scored[] | null;
    oldLogp: number[][];
    oldValues: number[][];
    headValues: number[][];
    refLogp: number[][] | null;
    advantages: Float64Array[];
    returns: Float64Array[];
    targets: Float64Array[];
    metrics: Record<string, number>;
  },
): { sequences: TokenSequence[]; perToken: Experience['perToken']; lossTokens: number } {
  const L = x.model.num_hidden_layers;
  const k = x.model.num_experts_per_tok;
  const r3 = x.ppo.r3 === 'on';
  const { oldLogp, metrics } = a;
  let tisSum = 0;
  let tisMax = 0;
  let tisClipped = 0;
  let lossTokens = 0;
  const staleness: number[] = [];
  const perToken: Experience['perToken'] = [];
  const sequences: TokenSequence[] = a.refs.map(({ row }, i) => {
    const w =
      x.ppo.tis === 'on'
        ? tisWeights(oldLogp[i]!, row.samplerLogprobs, row.lossMask, x.ppo.tis_cap)
        : new Float64Array(row.lossMask.length).fill(1);
    row.lossMask.forEach((m, t) => {
      if (m !== 1) return;
      lossTokens++;
      const raw = Math.exp(oldLogp[i]![t]! - row.samplerLogprobs[t]!);
      tisSum += Math.min(raw, x.ppo.tis_cap);
      tisMax = Math.max(tisMax, raw);
      if (raw > x.ppo.tis_cap) tisClipped++;
    });
    staleness.push(x.version - a.refs[i]!.policyVersion);
    perToken.push({
      old: oldLogp[i]!,
      values: a.oldValues[i]!,
      advantages: Array.from(a.advantages[i]!),
      returns: Array.from(a.returns[i]!),
      tis: Array.from(w),
    });
    const routing =
      r3 && row.routing ? row.routing.map((route, t) => route ?? fallbackRoute(a.free, i, t, x.rows, k, L)) : undefined;
    return {
      ids: [...row.inputIds, row.targets[row.targets.length - 1]!],
      tokenInputs: {
        loss_mask: row.lossMask,
        old_logprobs: oldLogp[i]!,
        advantages: a.advantages[i]!,
        returns: a.targets[i]!,
        old_values: a.headValues[i]!,
        tis_weights: w,
        ref_logprobs: a.refLogp ? a.refLogp[i]! : oldLogp[i]!,
      },
      ...(routing ? { forcedExperts: routing } : {}),
    };
  });
  metrics.tis_weight_mean = lossTokens ? tisSum / lossTokens : 1;
  metrics.tis_weight_max = tisMax;
  metrics.tis_clipped_share = lossTokens ? tisClipped / lossTokens : 0;
  metrics.staleness = staleness.length ? Math.max(...staleness) : 0;
  metrics.staleness_mean = staleness.length ? staleness.reduce((a, b) => a + b, 0) / staleness.length : 0;
  metrics.loss_tokens = lossTokens;
  return { sequences, perToken, lossTokens };
}

/** The trainer's own experts for a position the sampler never processed (from the free pass), else 0..k-1. */
function fallbackRoute(free: Scored[] | null, row: number, t: number, rows: number, k: number, L: number): number[][] {
  const s = free?.[Math.floor(row / rows)];
  const b = row % rows;
  return Array.from({ length: L }, (_, l) =>
    Array.from({ length: k }, (_, j) =>
      s ? Number(s.experts[((l * s.packed.batch + b) * s.packed.length + t) * k + j]!) : j,
    ),
  );
}
