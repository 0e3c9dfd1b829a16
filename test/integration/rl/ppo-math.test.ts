/**
 * The six PPO deviations of issue 21, each on the real experience builder and update (onnxruntime, a tiny
 * MoE, hand-made episodes): the policy's gain does not depend on the reward's scale (value targets are
 * standardised), a singleton group is not silently flat, group advantages are not whitened twice, the
 * trainer scores the tempered policy the sampler drew from, the load-balancing term is weighted once per
 * minibatch, and a NaN at a masked position neither poisons the loss nor reaches AdamW.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { buildExperience } from '../../../electron/lab/ppo/experience';
import { minibatchGradients, ppoUpdate } from '../../../electron/lab/ppo/update';
import type { TokenSequence } from '../../../electron/lab/training/batching';
import type { PpoSection } from '../../../electron/lab/training/config/ppo';
import { createOptimizerState, DEFAULT_ADAMW } from '../../../electron/rl/adamw';
import { groupAdvantages } from '../../../electron/rl/advantages';
import type { TrainRow } from '../../../electron/rl/batch';
import { ResumableRng } from '../../../electron/rl/rng';
import { scoreRows } from '../../../electron/rl/scoring';
import { seededRandom } from '../../helpers/gradcheck';
import { ppoSection, writeHandEpisodes, type HandEpisode } from '../../helpers/ppo-experience';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';
import { makeTempDir } from '../../helpers/tmp';

const config = tinyConfig();
const V = config.vocab_size;
const FAST = { r3: 'off', measure_free_gap: false, async: false } as const;

describe('PPO math (issue 21)', () => {
  const tmp = makeTempDir('t1lab-ppo-math-');
  let cache: TrainingGraphCache;
  beforeAll(() => {
    cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1, capacity: 12 });
  });
  afterAll(async () => {
    await cache.clear();
    tmp.remove();
  });

  const random = seededRandom(5);
  const ids = (n: number) => Array.from({ length: n }, () => Math.floor(random() * V));
  let dirs = 0;
  const experience = (episodes: HandEpisode[], ppo: PpoSection, params = tinyWeights(config, 3)) => {
    const runDir = `${tmp.path}/run-${dirs++}`;
    return buildExperience({
      runDir,
      model: config,
      cache,
      params,
      reference: null,
      ppo,
      rows: 4,
      version: 0,
      episodes: writeHandEpisodes(runDir, episodes),
    });
  };
  /** Mean log-prob of the loss tokens, signed by the advantage, under `params`. */
  const signedLogp = async (seqs: readonly TokenSequence[], params: Map<string, Float32Array>) => {
    const rows: TrainRow[] = seqs.map((s) => ({
      inputIds: s.ids.slice(0, -1),
      targets: s.ids.slice(1),
      lossMask: Array.from(s.tokenInputs.loss_mask!),
      samplerLogprobs: [],
      routing: null,
    }));
    const scored = await scoreRows(config, cache, params, rows, false);
    let sum = 0;
    let n = 0;
    seqs.forEach(
      (s, r) =>
        s.tokenInputs.loss_mask!.length &&
        Array.from(s.tokenInputs.loss_mask!).forEach((m, t) => {
          if (m !== 1) return;
          sum += Math.sign(s.tokenInputs.advantages![t]!) * scored.logprobs[r]![t]!;
          n++;
        }),
    );
    return sum / n;
  };

  // Deviation 1: the value loss on raw dense rewards dominated the shared gradient norm, so the policy's
  // step shrank as rewards grew (x4 rewards: half the gain). With standardised value targets it does not.
  it('the policy gain of one update does not depend on the reward scale (value_norm = "running")', async () => {
    const base = [0, 1, 2, 3].map((i) => ({ prompt: ids(4), sampled: ids(6), key: `e${i}`, group: `g${i >> 1}` }));
    const gain = async (scale: number, valueNorm: 'running' | 'off') => {
      const ppo = ppoSection({ ...FAST, value_norm: valueNorm, epochs: 4, minibatches: 1 });
      const eps = base.map((e, i) => ({ ...e, reward: [1, 3, 0, 2][i]! * scale }));
      const params = tinyWeights(config, 3);
      const exp = await experience(eps, ppo, params);
      const before = await signedLogp(exp.sequences, params);
      const upd = await ppoUpdate({
        model: config,
        cache,
        params,
        optimizer: createOptimizerState(params),
        settings: new Map(),
        hyper: DEFAULT_ADAMW,
        lr: 3e-3,
        gradClip: 1,
        auxCoef: 0,
        ppo,
        criticOnly: false,
        rows: 4,
        maxLength: 64,
        rng: new ResumableRng(1),
        sequences: exp.sequences,
      });
      return {
        gain: (await signedLogp(exp.sequences, params)) - before,
        gradNorm: upd.metrics.grad_norm!,
        vf: upd.metrics.vf_loss!,
      };
    };
    const g1 = await gain(1, 'running');
    const g4 = await gain(4, 'running');
    console.log(
      `value_norm running: gain x1 ${g1.gain.toFixed(4)} x4 ${g4.gain.toFixed(4)} (ratio ${(g4.gain / g1.gain).toFixed(3)}), grad norm ${g1.gradNorm.toFixed(3)} / ${g4.gradNorm.toFixed(3)}, vf_loss ${g1.vf.toFixed(3)} / ${g4.vf.toFixed(3)}`,
    );
    const r1 = await gain(1, 'off');
    const r4 = await gain(4, 'off');
    console.log(
      `value_norm off:     gain x1 ${r1.gain.toFixed(4)} x4 ${r4.gain.toFixed(4)} (ratio ${(r4.gain / r1.gain).toFixed(3)}), grad norm ${r1.gradNorm.toFixed(3)} / ${r4.gradNorm.toFixed(3)}, vf_loss ${r1.vf.toFixed(3)} / ${r4.vf.toFixed(3)}`,
    );
    expect(g1.gain).toBeGreaterThan(0);
    expect(g4.gain / g1.gain).toBeGreaterThan(0.95);
    expect(g4.gain / g1.gain).toBeLessThan(1.05);
    // Raw targets (the behaviour before value_norm): x4 rewards, x16 value loss, the clipped step goes to it.
    expect(r4.gain / r1.gain).toBeLessThan(0.5);
  });

  // Deviation 2: a group of one episode counted as flat, so with flat_groups = "skip" GAE zeroed it.
  it('GAE: an episode alone in its group keeps its advantage; group mode: it warns and reports the share', async () => {
    const eps: HandEpisode[] = [
      { key: 'a', group: 'solo', reward: 3, prompt: ids(3), sampled: ids(5) },
      { key: 'b', group: 'pair', reward: 1, prompt: ids(3), sampled: ids(5) },
      { key: 'c', group: 'pair', reward: 2, prompt: ids(3), sampled: ids(5) },
    ];
    const gae = await experience(eps, ppoSection({ ...FAST }));
    const solo = gae.sequences[0]!.tokenInputs;
    const advSolo = Array.from(solo.advantages!).filter((_, t) => solo.loss_mask![t] === 1);
    expect(advSolo.every((a) => a !== 0)).toBe(true);
    expect(gae.metrics.flat_group_share).toBe(0);
    const group = await experience(eps, ppoSection({ ...FAST, advantage: 'group' }));
    expect(group.metrics.singleton_group_share).toBeCloseTo(1 / 3, 12);
    expect(group.warnings.join('\n')).toMatch(/1 of 3 kept episodes are alone in their group/);
  });

  // Deviation 3: group advantages were standardised per group and then whitened again, token-weighted.
  it("group mode: each token carries its episode's group-standardised advantage, not whitened again", async () => {
    const eps: HandEpisode[] = [
      { key: 'a', group: 'g1', reward: 0, prompt: ids(3), sampled: ids(2) },
      { key: 'b', group: 'g1', reward: 2, prompt: ids(3), sampled: ids(9) },
      { key: 'c', group: 'g2', reward: 1, prompt: ids(3), sampled: ids(4) },
      { key: 'd', group: 'g2', reward: 4, prompt: ids(3), sampled: ids(3) },
    ];
    const exp = await experience(eps, ppoSection({ ...FAST, advantage: 'group' }));
    const want = groupAdvantages([0, 2, 1, 4], ['g1', 'g1', 'g2', 'g2'], { scale: 'group' });
    exp.sequences.forEach(
      (s, i) =>
        s.tokenInputs.loss_mask!.length &&
        Array.from(s.tokenInputs.loss_mask!).forEach(
          (m, t) => m === 1 && expect(s.tokenInputs.advantages![t]).toBeCloseTo(want[i]!, 5),
        ),
    );
  });

  // group_scale = "none" (Dr. GRPO): the centred reward, not divided by the group's std, so a dense
  // group whose episodes differ by a fraction of an assertion trains by that fraction; "batch": the same over
  // one std of the batch's moving episodes.
  it('group mode with group_scale = "none" / "batch": tokens carry the centred reward, unscaled / over one std', async () => {
    const eps: HandEpisode[] = [
      { key: 'a', group: 'g1', reward: 0.5, prompt: ids(3), sampled: ids(2) },
      { key: 'b', group: 'g1', reward: 0.6, prompt: ids(3), sampled: ids(6) },
      { key: 'c', group: 'g2', reward: 0, prompt: ids(3), sampled: ids(4) },
      { key: 'd', group: 'g2', reward: 1, prompt: ids(3), sampled: ids(3) },
    ];
    const centred = [-0.05, 0.05, -0.5, 0.5];
    const rms = Math.sqrt(centred.reduce((a, c) => a + c * c, 0) / 4);
    for (const [scale, want] of [
      ['none', centred],
      ['batch', centred.map((c) => c / rms)],
    ] as const) {
      const exp = await experience(eps, ppoSection({ ...FAST, advantage: 'group', group_scale: scale }));
      exp.sequences.forEach((s, i) => {
        const adv = Array.from(s.tokenInputs.advantages!).filter((_, t) => s.tokenInputs.loss_mask![t] === 1);
        expect(adv.length).toBeGreaterThan(0);
        adv.forEach((a) => expect(a).toBeCloseTo(want[i]!, 5));
      });
    }
  });

  // Deviation 4: the trainer scored temperature-1 log-probs against a sampler that drew at T: the gap and
  // the TIS weights measured the temperature, not the train-inference mismatch.
  it('scores the tempered policy the episodes were sampled from (gap ~0, TIS weights ~1 at T = 0.5)', async () => {
    const T = 0.5;
    const params = tinyWeights(config, 3);
    const eps: HandEpisode[] = [0, 1].map((i) => ({
      key: `t${i}`,
      group: 'g',
      reward: i,
      prompt: ids(3),
      sampled: ids(5),
      temperature: T,
    }));
    // The sampler's log-probs, computed apart: log-softmax(logits / T) from the temperature-1 log-probs of
    // every vocabulary entry (a row per candidate target).
    for (const e of eps) {
      const all = [...e.prompt, ...e.sampled];
      const candidates: TrainRow[] = Array.from({ length: V }, (_, v) => ({
        inputIds: all.slice(0, -1),
        targets: all.slice(1).map(() => v),
        lossMask: [],
        samplerLogprobs: [],
        routing: null,
      }));
      const scored = await scoreRows(config, cache, params, candidates, false, undefined, undefined, 1, 'all');
      e.samplerLogprobs = e.sampled.map((id, j) => {
        const p = e.prompt.length + j - 1;
        const scaled = Array.from({ length: V }, (_, v) => scored.logprobs[v]![p]! / T);
        const max = Math.max(...scaled);
        return scaled[id]! - (max + Math.log(scaled.reduce((a, x) => a + Math.exp(x - max), 0)));
      });
    }
    const exp = await experience(eps, ppoSection({ ...FAST, temperature: T }), params);
    expect(exp.temperature).toBe(T);
    expect(exp.metrics.train_infer_gap_free).toBeLessThan(1e-4);
    expect(Math.abs(exp.metrics.tis_weight_mean! - 1)).toBeLessThan(1e-4);
  });

  const sequence = (n: number, fill: (name: string, t: number, inLoss: boolean) => number): TokenSequence => {
    const tokens = ids(n + 1);
    const mask = Array.from({ length: n }, (_, t) => (t >= 2 && t !== 4 ? 1 : 0));
    const input = (name: string) => mask.map((m, t) => fill(name, t, m === 1));
    return {
      ids: tokens,
      tokenInputs: Object.fromEntries(
        ['loss_mask', 'old_logprobs', 'advantages', 'returns', 'old_values', 'tis_weights', 'ref_logprobs'].map((k) => [
          k,
          k === 'loss_mask' ? mask : input(k),
        ]),
      ),
    };
  };
  const tokensOf = (seqs: TokenSequence[]) =>
    seqs.reduce((n, s) => n + Array.from(s.tokenInputs.loss_mask!).reduce((a, b) => a + b, 0), 0);
  const SCALARS = {
    pg_coef: 1,
    eps_low: 0.2,
    eps_high: 0.28,
    vf_clip: 0.2,
    vf_coef: 0.5,
    ent_coef: 0.01,
    kl_coef: 0.1,
    aux_coef: 0.01,
  };
  const ordinary = (name: string, t: number) =>
    name === 'tis_weights'
      ? 1
      : name.endsWith('logprobs')
        ? -2 - 0.1 * t
        : name === 'advantages'
          ? t % 2
            ? 1
            : -1
          : 0.3 * t;

  // Deviation 5: aux_coef was applied per micro-batch and the micro-batches summed.
  it('the load-balancing term weighs the same whether a minibatch is one micro-batch or two', async () => {
    const s = sequence(10, ordinary);
    const seqs = [s, s];
    const scalars = {
      ...SCALARS,
      pg_coef: 0,
      vf_coef: 0,
      ent_coef: 0,
      kl_coef: 0,
      aux_coef: 1,
      inv_tokens: 1 / tokensOf(seqs),
    };
    const params = tinyWeights(config, 3);
    const one = await minibatchGradients(
      { model: config, cache, params, rows: 2, maxLength: 64 },
      seqs,
      scalars,
      false,
    );
    const two = await minibatchGradients(
      { model: config, cache, params, rows: 1, maxLength: 64 },
      seqs,
      scalars,
      false,
    );
    let worst = 0;
    let size = 0;
    for (const [name, g] of one.grads)
      g.forEach(
        (v, i) => (
          (worst = Math.max(worst, Math.abs(v - two.grads.get(name)![i]!))),
          (size = Math.max(size, Math.abs(v)))
        ),
      );
    expect(size).toBeGreaterThan(1e-4);
    expect(worst / size).toBeLessThan(1e-4);
    expect(two.metrics.aux_loss).toBeCloseTo(one.metrics.aux_loss!, 5);
  });

  // Deviation 6: NaN * 0 = NaN, and clipping passed a NaN norm on to AdamW.
  it('a NaN at a masked position changes nothing; a NaN gradient skips the step and leaves the weights', async () => {
    const params = tinyWeights(config, 3);
    const clean = [sequence(10, ordinary)];
    const poisoned = [
      {
        ...clean[0]!,
        tokenInputs: Object.fromEntries(
          Object.entries(clean[0]!.tokenInputs).map(([k, v]) => [
            k,
            k === 'loss_mask' ? v : Array.from(v).map((x, t) => (clean[0]!.tokenInputs.loss_mask![t] === 1 ? x : NaN)),
          ]),
        ),
      },
    ];
    const scalars = { ...SCALARS, inv_tokens: 1 / tokensOf(clean) };
    const a = await minibatchGradients({ model: config, cache, params, rows: 1, maxLength: 64 }, clean, scalars, false);
    const b = await minibatchGradients(
      { model: config, cache, params, rows: 1, maxLength: 64 },
      poisoned,
      scalars,
      false,
    );
    expect(Number.isFinite(b.metrics.loss)).toBe(true);
    expect(b.metrics.loss).toBeCloseTo(a.metrics.loss!, 6);
    for (const [name, g] of b.grads) g.forEach((v, i) => expect(v).toBeCloseTo(a.grads.get(name)![i]!, 6));

    // A NaN inside the loss (a broken advantage) makes the gradient NaN: the step is skipped, not applied.
    const broken = [
      sequence(10, (name, t, inLoss) => (name === 'advantages' && inLoss && t === 3 ? NaN : ordinary(name, t))),
    ];
    const before = new Map([...params].map(([k, w]) => [k, Float32Array.from(w)]));
    const logs: string[] = [];
    const ppo = ppoSection({ ...FAST, epochs: 1, minibatches: 1 });
    const optimizer = createOptimizerState(params);
    const upd = await ppoUpdate({
      model: config,
      cache,
      params,
      optimizer,
      settings: new Map(),
      hyper: DEFAULT_ADAMW,
      lr: 1e-2,
      gradClip: 1,
      auxCoef: 0.01,
      ppo,
      criticOnly: false,
      rows: 1,
      maxLength: 64,
      rng: new ResumableRng(1),
      sequences: broken,
      log: (m) => logs.push(m),
    });
    expect(upd.metrics.skipped_steps).toBe(1);
    expect(upd.optimizerSteps).toBe(0);
    expect(optimizer.step).toBe(0);
    for (const [name, w] of params) expect(w.every((v, i) => v === before.get(name)![i])).toBe(true);
    expect(logs.join('\n')).toMatch(/skipped: gradient norm is NaN/);
  });
}, 120_000);
