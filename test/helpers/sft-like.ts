/** A one-sample SFT file in the harness's layout (system prompt, user turn, one trained call) for a checkpoint's tokenizer. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashFile } from '../../native/model/checkpoint';
import { loadTokenizerFile } from '../../native/model/tokenizer';
import { SFT_SAMPLE_SCHEMA } from '../../electron/domain/sft';

export const LIKE_SYSTEM_PROMPT = '<|im_start|>system\nYou drive a bash shell. Budget: 6 turns.<|im_end|>\n';

export function writeLikeSample(checkpoint: string, path: string, over: Record<string, unknown> = {}): string {
  const tokenizer = loadTokenizerFile(checkpoint);
  const prompt = tokenizer.encode(
    `${LIKE_SYSTEM_PROMPT}<|im_start|>user\nWrite hello to a.txt\n<|im_end|>\n<|im_start|>assistant\n`,
  );
  const call = tokenizer.encode('<tool_call>\n{"name":"submit","arguments":{}}\n</tool_call><|im_end|>');
  const sample = {
    schema: SFT_SAMPLE_SCHEMA,
    id: 't@1#0',
    task: 't',
    source: 'oracle',
    tokenizer: hashFile(join(checkpoint, 'tokenizer.json')).sha256,
    ids: [...prompt, ...call],
    mask: [...prompt.map(() => 0), ...call.map(() => 1)],
    segments: [
      { kind: 'prompt', start: 0, length: prompt.length },
      { kind: 'sampled', start: prompt.length, length: call.length },
    ],
    protocol: 'hermes',
    reward: null,
    resolved: true,
    turns: 1,
    ledger: { clean: 1, repair: 0, fork: 0, lossDrift: 0 },
    ...over,
  };
  writeFileSync(path, `${JSON.stringify(sample)}\n`);
  return path;
}
