/**
 * The LM stage: next-token prediction on plain text. Documents are tokenized once (each ended by
 * <|endoftext|>), split train / held-out by a hash of the document, concatenated and cut into windows of
 * seq_len + 1 tokens; each step takes batch_size windows in seeded random order. The token streams are
 * saved in the run folder (data/*.u32), so a resumed run trains on exactly the same tokens.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sftLoss } from '../../../../native/model/losses';
import { LabError } from '../../../ipc/common/errors';
import type { TokenSequence } from '../batching';
import { loadCorpus, summarizeCorpus } from '../corpus';
import type { StageDriver } from '../stage';
import { EpochCursor } from './epoch-cursor';
import { isHeldOut } from './split';
import type { DriverFactory } from './types';

const DATA_DIR = 'data';

function writeU32(path: string, ids: readonly number[]): void {
  writeFileSync(path, Buffer.from(Uint32Array.from(ids).buffer));
}

function readU32(path: string): Uint32Array {
  const b = readFileSync(path);
  return new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

/** Characters per chunk of a long text (the unit of the held-out split). */
const CHUNK_CHARS = 2000;

export function chunkText(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + CHUNK_CHARS);
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end);
      if (nl > start) end = nl + 1;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

export const createLmDriver: DriverFactory = async (ctx) => {
  const { config, tokenizer } = ctx;
  const seqLen = Math.min(config.lm.seq_len, ctx.maxLength);
  const dir = join(ctx.runDir, DATA_DIR);
  const trainPath = join(dir, 'lm-train.u32');
  const evalPath = join(dir, 'lm-eval.u32');
  let description: Record<string, unknown>;
  if (!(ctx.resume && existsSync(trainPath))) {
    const paths = Array.isArray(config.data.path) ? config.data.path : [config.data.path];
    const docs = await loadCorpus(paths, ctx.tokenizerSha);
    const eot = tokenizer.special.endOfText;
    const train: number[] = [];
    const held: number[] = [];
    for (const [i, d] of docs.entries()) {
      // Long texts are split into chunks at line ends, so that one big file still gives a held-out part.
      const chunks = d.ids ? [d.ids] : chunkText(d.text ?? '').map((c) => tokenizer.encode(c));
      for (const [j, ids] of chunks.entries()) {
        // Keyed by the file's name, not its absolute path: the same corpus gives the same split wherever it lies.
        const target = isHeldOut(`${basename(d.source)}#${i}.${j}`, config.data.eval_fraction, config.seed)
          ? held
          : train;
        for (const id of ids) target.push(id);
        if (eot !== undefined && j === chunks.length - 1) target.push(eot);
      }
    }
    mkdirSync(dir, { recursive: true });
    writeU32(trainPath, train);
    writeU32(evalPath, held);
    description = {
      kind: 'lm',
      paths,
      seqLen,
      ...summarizeCorpus(docs),
      trainTokens: train.length,
      evalTokens: held.length,
    };
    writeFileSync(join(dir, 'lm-data.json'), JSON.stringify(description, null, 2) + '\n');
  } else description = JSON.parse(readFileSync(join(dir, 'lm-data.json'), 'utf8')) as Record<string, unknown>;
  const train = readU32(trainPath);
  const held = readU32(evalPath);
  const windows = Math.floor((train.length - 1) / seqLen);
  if (windows < 1)
    throw new LabError(
      'INVALID_PARAMS',
      `data.path: ${train.length} training tokens are fewer than one window of lm.seq_len ${seqLen}`,
    );
  const window = (stream: Uint32Array, i: number): TokenSequence => {
    const ids = Array.from(stream.subarray(i * seqLen, i * seqLen + seqLen + 1));
    return { ids, tokenInputs: { loss_mask: new Float32Array(ids.length - 1).fill(1) } };
  };
  const evalCount = Math.min(
    Math.floor((held.length - 1) / seqLen),
    config.train.eval_batches * config.train.micro_batch_size,
  );
  const evalSeqs = Array.from({ length: Math.max(0, evalCount) }, (_, i) => window(held, i));
  const cursor = new EpochCursor(windows, config.seed);
  ctx.log(
    `lm data: ${train.length} training tokens (${windows} windows of ${seqLen}), ${held.length} held out (${evalSeqs.length} eval windows)`,
  );
  const driver: StageDriver = {
    stage: 'lm',
    loss: sftLoss,
    forcedRouting: false,
    scalars: () => ({ aux_coef: config.train.aux_coef }),
    nextBatch: () => cursor.take(config.train.batch_size).map((i) => window(train, i)),
    evalSequences: () => evalSeqs,
    cursor: () => ({ ...cursor.state }),
    restore: (c) => cursor.restore(c),
    describe: () => ({ ...description, windows, evalWindows: evalSeqs.length }),
  };
  return driver;
};
