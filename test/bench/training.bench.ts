/**
 * Training figures (issue 12): tokens/s of whole trainer steps (data, micro-batches padded to buckets,
 * forward+backward, gradient accumulation, clipping, AdamW, metrics.jsonl + TensorBoard + status writes)
 * against the engine's forward+backward alone on the same batches, for nano and micro (goal: the optimizer
 * and data path cost <= 15% on top); and the time to save a training checkpoint (weights + AdamW moments)
 * and to resume from one, against raw writes and reads of the same bytes.
 */
import { closeSync, fsyncSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { saveCheckpoint } from '../../native/model/checkpoint/index';
import { PRESETS, type PresetName } from '../../native/model/config';
import { TrainingGraphCache } from '../../native/model/graph-cache';
import { initParameters } from '../../native/model/init';
import { sftLoss } from '../../native/model/losses';
import { runTrainingStep } from '../../native/model/train-step';
import { createOptimizerState } from '../../electron/rl/adamw';
import { packMicroBatch, planMicroBatches, type TokenSequence } from '../../electron/lab/training/batching';
import { loadTrainingCheckpoint, saveTrainingCheckpoint } from '../../electron/lab/training/checkpoints';
import { parseRunConfig } from '../../electron/lab/training/config/run-config';
import { readMetrics } from '../../electron/lab/training/run-folder';
import { startTraining } from '../../electron/lab/training/session';
import { loadTokenizer } from '../../native/model/tokenizer';
import { testTokenizer } from '../helpers/checkpoint';
import { terminalCorpus } from '../helpers/corpus';
import { makeTempDir } from '../helpers/tmp';
import { median, type Bench } from './reporter';

const SHAPES: Record<PresetName, { seqLen: number; batch: number; micro: number }> = {
  nano: { seqLen: 256, batch: 16, micro: 8 },
  micro: { seqLen: 128, batch: 16, micro: 8 },
};

const bench: Bench = {
  name: 'training',
  about: 'issue 12: trainer tokens/s (fwd+bwd+optimizer+data) vs engine fwd+bwd alone; training checkpoint save/resume',
  async run(report, { quick }) {
    const tmp = makeTempDir('t1lab-bench-train-');
    try {
      const tokenizer = testTokenizer();
      const corpus = join(tmp.path, 'corpus.txt');
      writeFileSync(corpus, terminalCorpus(quick ? 400_000 : 1_500_000, 3).join('\n'));
      for (const preset of quick ? (['nano'] as const) : (['nano', 'micro'] as const)) {
        const shape = SHAPES[preset];
        const steps = quick ? 6 : 12;
        const config = { ...PRESETS[preset], vocab_size: 512 };
        const init = join(tmp.path, `${preset}-init`);
        saveCheckpoint(init, {
          config,
          tokenizer: tokenizer.json,
          tokenizerConfig: tokenizer.config,
          parameters: initParameters(config, 1),
          labVersion: 'bench',
        });
        const runDir = join(tmp.path, `${preset}-run`);
        const runConfig = parseRunConfig({
          stage: 'lm',
          model: { checkpoint: init },
          data: { path: corpus, eval_fraction: 0 },
          train: { steps, batch_size: shape.batch, micro_batch_size: shape.micro, eval_every: 0, provider: 'cpu' },
          checkpoint: { every: 1000 },
          lm: { seq_len: shape.seqLen },
        });
        await (
          await startTraining({ config: runConfig, configSource: null, out: runDir }, { dataDir: tmp.path })
        ).done;
        // Steps 2..N-1: the first builds the graph's session, the last saves the final checkpoint.
        const rows = readMetrics(runDir);
        const mid = rows.slice(1, -1);
        const tokens = mid.length * shape.batch * shape.seqLen;
        const wall = rows.at(-2)!.wall_time - rows[0]!.wall_time;
        const trainerRate = tokens / wall;
        const split = (k: 'data' | 'fwd_bwd' | 'optimizer') => median(mid.map((r) => r.time[k]));

        // Baseline: the engine's forward+backward alone on the same shapes, same batches.
        const cache = new TrainingGraphCache(config, { provider: 'cpu', interOpThreads: 1 });
        const params = initParameters(config, 1);
        const tok = loadTokenizer(tokenizer.json);
        const ids = tok.encode(readFileSync(corpus, 'utf8').slice(0, 400_000));
        const seqs: TokenSequence[] = Array.from({ length: shape.batch }, (_, i) => {
          const window = ids.slice(i * shape.seqLen, i * shape.seqLen + shape.seqLen + 1);
          return { ids: window, tokenInputs: { loss_mask: new Float32Array(shape.seqLen).fill(1) } };
        });
        const packs = planMicroBatches(seqs, shape.micro).map((g) =>
          packMicroBatch(g, {
            rows: shape.micro,
            loss: sftLoss,
            scalars: { aux_coef: 0.01 },
            maxLength: config.max_position_embeddings,
          }),
        );
        const entry = await cache.get({
          batch: shape.micro,
          length: shape.seqLen,
          forcedRouting: false,
          loss: sftLoss,
        });
        for (const p of packs) await runTrainingStep(config, entry, params, p.batch); // warm
        const t0 = performance.now();
        for (let s = 0; s < mid.length; s++)
          for (const p of packs) await runTrainingStep(config, entry, params, p.batch);
        const engineRate = tokens / ((performance.now() - t0) / 1000);
        await cache.clear();
        const overhead = engineRate / trainerRate - 1;
        report.note(
          `${preset}: B=${shape.batch} (micro ${shape.micro}) T=${shape.seqLen}, median step split: data ${(split('data') * 1000).toFixed(1)} ms, fwd+bwd ${(split('fwd_bwd') * 1000).toFixed(0)} ms, optimizer ${(split('optimizer') * 1000).toFixed(1)} ms`,
        );
        report.figure({
          name: `${preset}: trainer tokens/s (whole steps)`,
          value: trainerRate,
          unit: 'tok/s',
          baseline: { name: 'engine fwd+bwd alone', value: engineRate },
          ratio: engineRate / trainerRate,
          goal: 'optimizer + data <= 15% on top',
          met: overhead <= 0.15,
        });

        // Checkpoint save and resume (weights + AdamW moments + trainer state).
        const state = {
          step: 1,
          tokens: 0,
          cursor: { epoch: 0, index: 0 },
          rng: {},
          bestEvalLoss: null,
          lastLoss: null,
          lastEvalLoss: null,
        };
        const optimizer = createOptimizerState(params);
        const saves: number[] = [];
        const loads: number[] = [];
        const raws: number[] = [];
        const rawReads: number[] = [];
        for (let i = 0; i < (quick ? 1 : 3); i++) {
          const dir = join(tmp.path, `${preset}-ck-${i}`);
          const t1 = performance.now();
          const saved = saveTrainingCheckpoint({
            runDir: dir,
            runId: 'bench',
            stage: 'lm',
            config,
            tokenizer: tok,
            params,
            optimizer,
            state: { ...state, step: i + 1 },
            parent: null,
            evalLoss: null,
          });
          saves.push(performance.now() - t1);
          const model = readFileSync(join(saved.dir, 'model.safetensors'));
          const opt = readFileSync(join(saved.dir, 'optimizer.safetensors'));
          const t2 = performance.now();
          const fd = openSync(join(tmp.path, `raw-${preset}-${i}`), 'w');
          writeSync(fd, model);
          writeSync(fd, opt);
          fsyncSync(fd);
          closeSync(fd);
          raws.push(performance.now() - t2);
          const t3 = performance.now();
          readFileSync(join(saved.dir, 'model.safetensors'));
          readFileSync(join(saved.dir, 'optimizer.safetensors'));
          rawReads.push(performance.now() - t3);
          const t4 = performance.now();
          loadTrainingCheckpoint(saved.dir);
          loads.push(performance.now() - t4);
        }
        report.figure({
          name: `${preset}: save training checkpoint`,
          value: median(saves),
          unit: 'ms',
          baseline: { name: 'raw write+fsync of the same bytes', value: median(raws) },
          ratio: median(saves) / median(raws),
        });
        report.figure({
          name: `${preset}: resume from a training checkpoint`,
          value: median(loads),
          unit: 'ms',
          baseline: { name: 'raw read of the same bytes', value: median(rawReads) },
          ratio: median(loads) / median(rawReads),
        });
      }
    } finally {
      tmp.remove();
    }
  },
};

export default bench;
