/**
 * The SFT stage: supervised fine-tuning on SFT sample files (electron/domain/sft.ts), with the loss on
 * the assistant's (sampled) tokens only — exactly the ids and masks of the TITO ledger. Samples longer
 * than the window are skipped and counted; a hash of each sample id picks the held-out split (eval
 * loss). The samples used are copied into the run folder (data/sft-samples.jsonl) for an exact resume.
 * Every `sft.eval_suite_every` steps the newest checkpoint runs on `sft.eval_suite` as `onnx:DIR` and its
 * resolved rate (with a 95% interval) goes into the metrics.
 */
import { copyFileSync, existsSync, mkdirSync, statSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sftLoss } from '../../../../native/model/losses';
import type { SftSample } from '../../../domain/sft';
import { LabError } from '../../../ipc/common/errors';
import type { TokenSequence } from '../batching';
import { readSftSamples, SftSampleWriter } from '../sft-samples';
import type { StageDriver } from '../stage';
import { EpochCursor } from './epoch-cursor';
import { isHeldOut } from './split';
import type { DriverFactory } from './types';

const SAMPLES_FILE = 'sft-samples.jsonl';

function sampleFiles(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const path = resolve(p);
    if (!existsSync(path)) throw new LabError('INVALID_PARAMS', `data.path: ${path} does not exist`);
    if (statSync(path).isDirectory())
      out.push(
        ...readdirSync(path)
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => join(path, f)),
      );
    else out.push(path);
  }
  if (!out.length) throw new LabError('INVALID_PARAMS', `data.path: no .jsonl sample files in ${paths.join(', ')}`);
  return out;
}

export function sampleSequence(s: SftSample): TokenSequence {
  return { ids: s.ids, tokenInputs: { loss_mask: Float32Array.from(s.mask.slice(1)) } };
}

export const createSftDriver: DriverFactory = async (ctx) => {
  const { config } = ctx;
  const dir = join(ctx.runDir, 'data');
  const copy = join(dir, SAMPLES_FILE);
  const paths = Array.isArray(config.data.path) ? config.data.path : [config.data.path];
  if (!(ctx.resume && existsSync(copy))) {
    mkdirSync(dir, { recursive: true });
    const files = sampleFiles(paths);
    if (files.length === 1) copyFileSync(files[0]!, copy);
    else {
      const writer = new SftSampleWriter(copy);
      for (const f of files) writer.write(readSftSamples(f));
      writer.close();
    }
  }
  const all = readSftSamples(copy);
  for (const s of all) {
    if (s.tokenizer !== ctx.tokenizerSha)
      throw new LabError(
        'INVALID_PARAMS',
        `${paths.join(', ')}: sample ${s.id} was tokenized with another tokenizer (${s.tokenizer.slice(0, 12)}…) than the model's tokenizer.json (${ctx.tokenizerSha.slice(0, 12)}…): make the samples with this checkpoint (t1lab tasks sft-data --checkpoint)`,
      );
  }
  const fits = all.filter((s) => s.ids.length <= ctx.maxLength + 1 && s.mask.some((m, i) => i > 0 && m === 1));
  const skipped = all.length - fits.length;
  if (skipped)
    ctx.log(
      `sft data: ${skipped} of ${all.length} samples skipped (longer than the window of ${ctx.maxLength} tokens, or nothing to learn)`,
    );
  const train = fits.filter((s) => !isHeldOut(s.id, config.data.eval_fraction, config.seed));
  const held = fits.filter((s) => isHeldOut(s.id, config.data.eval_fraction, config.seed));
  if (!train.length)
    throw new LabError(
      'INVALID_PARAMS',
      `data.path: no SFT sample fits the window of ${ctx.maxLength} tokens (${all.length} read)`,
    );
  const evalSeqs = held.slice(0, config.train.eval_batches * config.train.micro_batch_size).map(sampleSequence);
  const cursor = new EpochCursor(train.length, config.seed);
  const maxEpochs = config.sft.max_epochs;
  const lossTokens = train.reduce((n, s) => n + s.mask.reduce<number>((a, b) => a + b, 0), 0);
  ctx.log(`sft data: ${train.length} training samples (${lossTokens} assistant tokens), ${held.length} held out`);
  const suiteEvery = config.sft.eval_suite_every;
  if (suiteEvery > 0 && !config.sft.eval_suite)
    throw new LabError('INVALID_PARAMS', 'sft.eval_suite_every is set but sft.eval_suite is empty');
  if (suiteEvery > 0 && suiteEvery % config.checkpoint.every !== 0)
    throw new LabError(
      'INVALID_PARAMS',
      `sft.eval_suite_every (${suiteEvery}) must be a multiple of checkpoint.every (${config.checkpoint.every}): the eval runs a saved checkpoint`,
    );
  if (suiteEvery > 0 && !ctx.evaluateSuite)
    ctx.log('warning: sft.eval_suite_every is set but evaluations cannot run here; skipped');
  const driver: StageDriver = {
    stage: 'sft',
    loss: sftLoss,
    forcedRouting: false,
    scalars: () => ({ aux_coef: config.train.aux_coef }),
    nextBatch: () => cursor.take(config.train.batch_size).map((i) => sampleSequence(train[i]!)),
    evalSequences: () => evalSeqs,
    cursor: () => ({ ...cursor.state }),
    restore: (c) => cursor.restore(c),
    describe: () => ({
      kind: 'sft',
      paths,
      samples: all.length,
      skipped,
      train: train.length,
      heldOut: held.length,
      lossTokens,
      tasks: new Set(all.map((s) => s.task)).size,
    }),
    exhausted: () => maxEpochs > 0 && cursor.state.epoch >= maxEpochs,
    async afterStep({ step, lastCheckpoint }): Promise<Record<string, number>> {
      if (!(suiteEvery > 0 && step % suiteEvery === 0 && lastCheckpoint && ctx.evaluateSuite)) return {};
      const r = await ctx.evaluateSuite(lastCheckpoint, config.sft.eval_suite, config.sft.eval_suite_tasks);
      return {
        'suite/resolved_rate': r.resolvedRate,
        'suite/ci95_low': r.ci95[0],
        'suite/ci95_high': r.ci95[1],
        'suite/mean_reward': r.meanReward,
        'suite/tasks': r.tasks,
      };
    },
  };
  return driver;
};
