/**
 * The LM and SFT stages end to end in-process on a tiny checkpoint: the loss goes down, gradient
 * accumulation over micro-batches is used, the run folder holds run.json, metrics.jsonl, TensorBoard
 * events and training checkpoints (weights + AdamW moments + step + data cursor), pruned to the last K plus
 * the best; and the same config and seed give the same curve.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../../native/model/checkpoint';
import { parseRunConfig } from '../../../electron/lab/training/config/run-config';
import { readMetrics, readTrainingManifest } from '../../../electron/lab/training/run-folder';
import { startTraining } from '../../../electron/lab/training/session';
import { trainingStatus } from '../../../electron/lab/training/status';
import { readTfEvents } from '../../../electron/lab/tensorboard/tfevents-reader';
import { sftSample, tokenizerSha } from '../../helpers/sft-like';
import { TINY_TEXT, writeTinyCheckpoint } from '../../helpers/tiny-checkpoint';

const root = mkdtempSync(join(tmpdir(), 't1-train-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const model = writeTinyCheckpoint(join(root, 'tiny'));
const corpus = join(root, 'corpus.txt');
writeFileSync(corpus, Array.from({ length: 6 }, (_, k) => TINY_TEXT.replaceAll('/app', `/app${k}`)).join('\n'));

const base = {
  model: { checkpoint: model },
  train: { steps: 24, batch_size: 4, micro_batch_size: 2, eval_every: 8, eval_batches: 2, threads: 1, provider: 'cpu' },
  optimizer: { lr: 0.01, weight_decay: 0.01 },
  schedule: { kind: 'cosine', warmup_steps: 3 },
  checkpoint: { every: 8, keep_last: 1 },
};

async function train(config: Record<string, unknown>, out: string) {
  const session = await startTraining({ config: parseRunConfig(config), configSource: null, out }, { dataDir: root });
  return session.done;
}

describe('training stages', () => {
  it('LM: the loss goes down, and the run folder has everything', async () => {
    const out = join(root, 'lm');
    const result = await train(
      { ...base, stage: 'lm', data: { path: corpus, eval_fraction: 0.3 }, lm: { seq_len: 32 } },
      out,
    );
    const rows = readMetrics(out);
    expect(rows.map((r) => r.step)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    const first = (rows[0]!.loss + rows[1]!.loss) / 2;
    const last = (rows[22]!.loss + rows[23]!.loss) / 2;
    expect(last).toBeLessThan(first * 0.8);
    expect(rows[0]!.micro_batches).toBe(2);
    // Each row says what the machine did during the step (sys.*; the CPU share from the second row on).
    expect(rows[0]!.sys).toMatchObject({
      mem_used_gb: expect.any(Number),
      rss_gb: expect.any(Number),
      load1: expect.any(Number),
    });
    expect((rows[1]!.sys as { cpu_percent?: number }).cpu_percent).toBeGreaterThanOrEqual(0);
    expect(result).toMatchObject({ stage: 'lm', steps: 24, tokens: 24 * 4 * 32, state: 'completed', runDir: out });
    expect(result.finalLoss).toBeCloseTo(rows[23]!.loss, 12);
    expect(result.evalLoss).not.toBeNull();

    const manifest = readTrainingManifest(out);
    expect(manifest.provider?.name).toBe('cpu');
    expect(manifest.init.path).toBe(model);
    expect(manifest.paramGroups.some((g) => g.weightDecay === 0)).toBe(true);
    // Checkpoints every 8 steps, the last one kept plus the best on eval loss.
    const kept = readdirSync(join(out, 'checkpoints')).sort();
    expect(kept).toContain('step-0000024');
    expect(kept.length).toBeLessThanOrEqual(2);
    expect(manifest.checkpoints.filter((c) => c.best)).toHaveLength(1);
    const ckpt = loadCheckpoint(result.checkpoint!, { optimizer: true });
    expect(ckpt.manifest.kind).toBe('training');
    expect(ckpt.optimizer!.state.has('embed.weight.exp_avg_sq')).toBe(true);
    expect(JSON.parse(ckpt.optimizer!.metadata.trainer_state!)).toMatchObject({
      step: 24,
      cursor: { epoch: expect.any(Number), index: expect.any(Number) },
    });

    const eventsFile = readdirSync(out).find((f) => f.startsWith('events.out.tfevents.'))!;
    const events = readTfEvents(join(out, eventsFile));
    expect(events.filter((e) => e.scalars['train/loss'] !== undefined)).toHaveLength(24);
    expect(events.at(-1)!.scalars['train/loss']).toBeCloseTo(rows[23]!.loss, 5);
    expect(trainingStatus(out)).toMatchObject({ state: 'completed', step: 24, totalSteps: 24 });

    // Same config, same seed: the same curve, step for step.
    const again = join(root, 'lm-again');
    await train({ ...base, stage: 'lm', data: { path: corpus, eval_fraction: 0.3 }, lm: { seq_len: 32 } }, again);
    expect(readMetrics(again).map((r) => r.loss)).toEqual(rows.map((r) => r.loss));
  });

  it('SFT: loss only on assistant tokens, and it goes down; held-out samples give an eval loss', async () => {
    const tok = loadCheckpoint(model).tokenizer;
    const sha = tokenizerSha(model);
    const samples = Array.from({ length: 24 }, (_, i) =>
      sftSample(
        tok.encode(`<|im_start|>user\nwc -l data.csv ${i % 5}<|im_end|>\n<|im_start|>assistant\n`),
        tok.encode(`$ cat data.csv | wc -l\n${(i % 5) * 3}<|im_end|>`),
        sha,
        { id: `t${i}@1#0`, task: `t${i % 5}` },
      ),
    );
    const file = join(root, 'sft.jsonl');
    writeFileSync(file, samples.map((s) => JSON.stringify(s)).join('\n') + '\n');
    const out = join(root, 'sft');
    const result = await train({ ...base, stage: 'sft', data: { path: file, eval_fraction: 0.2 } }, out);
    const rows = readMetrics(out);
    // Loss tokens per step are the assistant tokens of the step's 4 samples, not every token.
    const replyLens = samples.map((x) => x.mask.filter((m) => m === 1).length);
    const [lo, hi] = [Math.min(...replyLens), Math.max(...replyLens)];
    expect(rows.every((r) => (r.loss_tokens as number) >= 4 * lo && (r.loss_tokens as number) <= 4 * hi)).toBe(true);
    expect(hi).toBeLessThan(samples[0]!.ids.length / 2);
    expect(rows.at(-1)!.loss).toBeLessThan(rows[0]!.loss * 0.6);
    expect(result.evalLoss).not.toBeNull();
    expect(readTrainingManifest(out).data).toMatchObject({ kind: 'sft', samples: 24 });
    expect(existsSync(join(out, 'data', 'sft-samples.jsonl'))).toBe(true);
  });

  it('SFT refuses samples made with another tokenizer, naming the sample', async () => {
    const file = join(root, 'foreign.jsonl');
    const sample = sftSample([1], [2, 3], 'a'.repeat(64), { id: 'x@1#0', task: 'x' });
    writeFileSync(file, JSON.stringify(sample) + '\n');
    await expect(train({ ...base, stage: 'sft', data: { path: file } }, join(root, 'sft-foreign'))).rejects.toThrow(
      /sample x@1#0 was tokenized with another tokenizer/,
    );
  });
});
