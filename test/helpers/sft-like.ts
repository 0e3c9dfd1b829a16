/** SFT samples in the harness's layout for tests: a prompt (not trained) and a reply (trained), for a checkpoint's tokenizer. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashFile } from '../../native/model/checkpoint';
import { loadTokenizerFile } from '../../native/model/tokenizer';
import { SFT_SAMPLE_SCHEMA, type SftSample } from '../../electron/domain/sft';

export const LIKE_SYSTEM_PROMPT = '<|im_start|>system\nYou drive a bash shell. Budget: 6 turns.<|im_end|>\n';

/** The sha256 of a checkpoint's tokenizer.json, which every sample made with it names. */
export const tokenizerSha = (checkpoint: string): string => hashFile(join(checkpoint, 'tokenizer.json')).sha256;

/** One sample of a prompt's ids (mask 0) followed by a trained reply's (mask 1); `over` replaces any field. */
export function sftSample(
  prompt: readonly number[],
  reply: readonly number[],
  tokenizer: string,
  over: Partial<SftSample> | Record<string, unknown> = {},
): SftSample {
  return {
    schema: SFT_SAMPLE_SCHEMA,
    id: 't@1#0',
    task: 't',
    source: 'oracle',
    tokenizer,
    ids: [...prompt, ...reply],
    mask: [...prompt.map(() => 0), ...reply.map(() => 1)],
    segments: [
      { kind: 'prompt', start: 0, length: prompt.length },
      { kind: 'sampled', start: prompt.length, length: reply.length },
    ],
    protocol: 'hermes',
    reward: null,
    resolved: true,
    turns: 1,
    ledger: { clean: 1, repair: 0, fork: 0, lossDrift: 0 },
    ...over,
  } as SftSample;
}

/** A one-sample SFT file (system prompt, user turn, one trained call) for a checkpoint's tokenizer. */
export function writeLikeSample(checkpoint: string, path: string, over: Record<string, unknown> = {}): string {
  const tokenizer = loadTokenizerFile(checkpoint);
  const prompt = tokenizer.encode(
    `${LIKE_SYSTEM_PROMPT}<|im_start|>user\nWrite hello to a.txt\n<|im_end|>\n<|im_start|>assistant\n`,
  );
  const call = tokenizer.encode('<tool_call>\n{"name":"submit","arguments":{}}\n</tool_call><|im_end|>');
  writeFileSync(path, `${JSON.stringify(sftSample(prompt, call, tokenizerSha(checkpoint), over))}\n`);
  return path;
}
