/**
 * `model init` on a corpus too small for the preset's vocabulary: the model's vocabulary shrinks to the
 * tokenizer's, so no embedding row exists that the sampler could pick but the tokenizer cannot decode.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { initCheckpoint } from '../../../electron/lab/models/operations';
import { loadCheckpoint } from '../../../native/model/checkpoint';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-init-vocab-');
afterAll(() => tmp.remove());

it('caps vocab_size at the trained tokenizer and saves parameters of that size', () => {
  const corpus = join(tmp.path, 'small.txt');
  writeFileSync(corpus, 'ls -la\ncat file.txt | grep error\necho done\n'.repeat(20));
  const out = join(tmp.path, 'ckpt');
  const r = initCheckpoint({
    preset: 'nano',
    out,
    seed: 1,
    overrides: { num_hidden_layers: 1, num_experts: 2, num_experts_per_tok: 1 },
    corpus: [corpus],
  });
  expect(r.tokenizerVocab).toBeLessThan(4096);
  expect(r.config.vocab_size).toBe(r.tokenizerVocab);
  const saved = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as { vocab_size: number };
  expect(saved.vocab_size).toBe(r.tokenizerVocab);
  const tokenizer = JSON.parse(readFileSync(join(out, 'tokenizer.json'), 'utf8')) as {
    model: { vocab: Record<string, number> };
    added_tokens: { id: number }[];
  };
  const ids = [...Object.values(tokenizer.model.vocab), ...tokenizer.added_tokens.map((t) => t.id)];
  expect(Math.max(...ids)).toBe(saved.vocab_size - 1);
  const embed = [...loadCheckpoint(out).parameters].find(([name]) => name.includes('embed'))![1];
  expect(embed.length).toBe(saved.vocab_size * r.config.hidden_size);
});
