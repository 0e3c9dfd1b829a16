/**
 * Training run folders for tests and benchmarks, in the layout the Training page reads
 * (electron/lab/training/view-runs.ts): run.json with a stage, status.json, metrics.jsonl with every PPO
 * key of issue 13, checkpoints/ and rollouts/step-N/. Values are seeded, so a test can recompute them.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PPO_METRIC_KEYS } from '../../electron/domain/training-metrics';

/** A deterministic uniform [0, 1) generator (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const T0 = Date.parse('2026-12-01T10:00:00Z');

/** One metrics line of step `step`: trends plus noise, every fixed key, a time split and per-layer agreement. */
export function metricsLine(
  step: number,
  rand: () => number,
  options: { tokensPerStep?: number; secondsPerStep?: number } = {},
): Record<string, unknown> {
  const progress = 1 - Math.exp(-step / 200);
  const noise = () => (rand() - 0.5) * 0.2;
  const values: Record<string, number> = {
    reward_dense: 1 + 2 * progress + noise(),
    reward_fraction: (1 + 2 * progress) / 4 + noise() / 4,
    reward_binary: 0.1 + 0.5 * progress + noise() / 2,
    resolved: 0.1 + 0.5 * progress + noise() / 2,
    pg_loss: 0.05 * Math.exp(-step / 300) + Math.abs(noise()) * 0.01,
    pg_clipfrac: 0.1 + noise() / 4,
    ppo_kl: 0.002 + Math.abs(noise()) * 0.01,
    entropy: 2 - progress + noise(),
    vf_loss: 1 / (1 + step / 50) + Math.abs(noise()),
    vf_explained_var: progress * 0.8 + noise(),
    grad_norm: 0.5 + Math.abs(noise()) * 2,
    lr: 1e-4,
    tis_weight_mean: 1 + noise() / 10,
    train_infer_gap_r3: 2e-6 + Math.abs(noise()) * 1e-6,
    train_infer_gap_free: 0.01 + Math.abs(noise()) * 0.01,
    loss_drift: 0,
    routing_agreement: 0.97 + noise() / 20,
    staleness: step % 2,
    aborted_share: 0.1 + noise() / 4,
    tokens_per_s: 1500 + noise() * 1000,
  };
  for (const k of PPO_METRIC_KEYS) if (!(k in values)) throw new Error(`fixture lacks ${k}`);
  return {
    step,
    // the trainer's layout: cumulative tokens, epoch seconds, the step's time split as an object
    tokens: (step + 1) * (options.tokensPerStep ?? 4096),
    wall_time: (T0 + step * 1000 * (options.secondsPerStep ?? 2)) / 1000,
    loss: values.pg_loss! + values.vf_loss! * 0.5,
    ...values,
    time: { generation: 1.1 + noise(), environment: 0.6 + noise(), training: 0.3 + noise() / 4 },
    routing_agreement_layer: [0.99, 0.97, 0.96, 0.95].map((v) => v + noise() / 50),
  };
}

/** metrics.jsonl text for steps [from, to). */
export function metricsText(from: number, to: number, seed = 1): string {
  const rand = seeded(seed + from);
  let out = '';
  for (let s = from; s < to; s++) out += `${JSON.stringify(metricsLine(s, rand))}\n`;
  return out;
}

export interface FixtureRunOptions {
  stage?: 'lm' | 'sft' | 'ppo';
  steps?: number;
  totalSteps?: number;
  state?: 'running' | 'paused' | 'completed' | 'failed' | 'stopped' | null;
  rollouts?: number[];
  checkpoints?: number[];
  seed?: number;
}

/** A training run folder under `dataDir/training/<id>` (the trainer's layout); returns its path. */
export function writeTrainingRun(dataDir: string, id: string, o: FixtureRunOptions = {}): string {
  const dir = join(dataDir, 'training', id);
  mkdirSync(dir, { recursive: true });
  const steps = o.steps ?? 50;
  const total = o.totalSteps ?? steps;
  const checkpoints = (o.checkpoints ?? []).map((step, i, all) => ({
    step,
    dir: `checkpoints/${ckName(step)}`,
    id: `ck${step}`,
    evalLoss: 1 / (step + 1),
    best: i === all.length - 1,
  }));
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify(
      {
        schema: 't1lab.training-run/1',
        id,
        stage: o.stage ?? 'ppo',
        createdAt: new Date(T0).toISOString(),
        config: { schedule: { steps: total }, seed: o.seed ?? 1 },
        checkpoints,
      },
      null,
      2,
    ),
  );
  if (o.state !== null)
    writeFileSync(
      join(dir, 'status.json'),
      JSON.stringify({ state: o.state ?? 'completed', step: steps, totalSteps: total }),
    );
  writeFileSync(join(dir, 'metrics.jsonl'), metricsText(0, steps, o.seed ?? 1));
  for (const step of o.checkpoints ?? []) {
    const ck = join(dir, 'checkpoints', ckName(step));
    mkdirSync(ck, { recursive: true });
    writeFileSync(
      join(ck, 'manifest.json'),
      JSON.stringify({
        id: `ck${step}`,
        kind: 'training',
        created_at: new Date(T0 + step * 2000).toISOString(),
        files: {},
      }),
    );
  }
  for (const step of o.rollouts ?? []) writeRolloutStep(dir, step, o.seed ?? 1);
  return dir;
}

const ckName = (step: number) => `step-${String(step).padStart(7, '0')}`;

export function appendMetrics(dir: string, from: number, to: number, seed = 1): void {
  appendFileSync(join(dir, 'metrics.jsonl'), metricsText(from, to, seed));
}

const WORDS = [
  'ls',
  ' -la',
  '\n',
  'cat',
  ' hello',
  '.txt',
  ' >',
  ' out',
  '<tool_call>',
  '{"name":',
  ' "bash"',
  '}',
  '</tool_call>',
  ' echo',
  ' 42',
  ' |',
  ' wc',
  ' -l',
];
const OBS = ['total', ' 8', '\n', 'hello', '\n', '[exit', ' code', ' 0]', '\n'];
export const FIXTURE_LAYERS = 4;
export const FIXTURE_EXPERTS = 8;

/** A step's rollouts: four episodes of two turns each, tokens with every training quantity. */
export function writeRolloutStep(dir: string, step: number, seed = 1): void {
  const rand = seeded(seed * 1000 + step);
  const folder = join(dir, 'rollouts', `step-${String(step).padStart(6, '0')}`);
  mkdirSync(folder, { recursive: true });
  const tasks = [
    ['make-hello', 'file-operations'],
    ['sum-numbers', 'data-processing'],
    ['upper-words', 'data-processing'],
    ['make-hello', 'file-operations'],
  ] as const;
  let lines = '';
  tasks.forEach(([taskId, category], g) => {
    const key = `${taskId}-g${g}`;
    const ids: number[] = [];
    const text: string[] = [];
    const kinds: string[] = [];
    const mask: number[] = [];
    const logprobs: (number | null)[] = [];
    const advantages: (number | null)[] = [];
    const values: (number | null)[] = [];
    const tisWeights: (number | null)[] = [];
    const experts: (number[][] | null)[] = [];
    const gates: (number[][] | null)[] = [];
    const turnStarts: number[] = [];
    const reward = g === 0 ? 3 : Math.floor(rand() * 3);
    const push = (kind: string, piece: string, sampled: boolean) => {
      ids.push(Math.floor(rand() * 500));
      text.push(piece);
      kinds.push(kind);
      mask.push(sampled ? 1 : 0);
      const route = Array.from({ length: FIXTURE_LAYERS }, () => {
        const a = Math.floor(rand() * FIXTURE_EXPERTS);
        return [a, (a + 1 + Math.floor(rand() * (FIXTURE_EXPERTS - 1))) % FIXTURE_EXPERTS];
      });
      experts.push(route);
      gates.push(
        route.map(() => {
          const w = 0.5 + rand() * 0.4;
          return [w, 1 - w];
        }),
      );
      logprobs.push(sampled ? -rand() * 4 : null);
      advantages.push(sampled ? (reward - 1.5) * (0.5 + rand()) : null);
      values.push(sampled ? rand() * 3 : null);
      tisWeights.push(sampled ? Math.min(2, 0.6 + rand() * 0.8) : null);
    };
    for (const w of ['<|im_start|>', 'system', '\n', 'You', ' are', ' an', ' agent', '.']) push('prompt', w, false);
    for (let turn = 0; turn < 2; turn++) {
      turnStarts.push(ids.length);
      for (let i = 0; i < 12; i++) push('sampled', WORDS[(i + turn * 3) % WORDS.length]!, true);
      push('template', '<|im_end|>', false);
      for (const o of OBS) push('observation', o, false);
    }
    writeFileSync(
      join(folder, `${key}.json`),
      JSON.stringify({
        ids,
        text,
        kinds,
        mask,
        logprobs,
        advantages,
        values,
        tisWeights,
        experts,
        gates,
        turnStarts,
        ledgerEvents: [
          { turn: 1, verdict: g === 1 ? 'REPAIR' : 'CLEAN', tokenIndex: turnStarts[1], maskedSampled: g === 1 ? 2 : 0 },
        ],
        numExperts: FIXTURE_EXPERTS,
      }),
    );
    lines += `${JSON.stringify({ key, taskId, category, reward: { dense: reward, fraction: reward / 3, binary: reward === 3 ? 1 : 0 }, resolved: reward === 3, turns: 2, tokens: ids.length, aborted: g === 3 && reward === 0 })}\n`;
  });
  writeFileSync(join(folder, 'episodes.jsonl'), lines);
}
