/**
 * `t1lab tasks sft-drills` as a user runs it: the JSON shape, samples that `train sft` reads (the same file
 * the reader validates), and bad input (a count that is not a number, a like-file of another tokenizer).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSftSamples } from '../../../electron/lab/training/sft-samples';
import { parseJsonOutput, REPO_ROOT, runT1lab } from '../../helpers/cli';
import { writeLikeSample } from '../../helpers/sft-like';
import { makeTempDir } from '../../helpers/tmp';

const CHECKPOINT = join(REPO_ROOT, 'models', 'nano-sft');

describe('t1lab tasks sft-drills', () => {
  it('writes the drills as SFT samples and prints {samples, tokens, lossTokens, out}', async () => {
    const tmp = makeTempDir('t1lab-sft-drills-');
    const like = writeLikeSample(CHECKPOINT, join(tmp.path, 'like.jsonl'));
    const out = join(tmp.path, 'drills.jsonl');
    const r = await runT1lab([
      'tasks',
      'sft-drills',
      '--like',
      like,
      '--checkpoint',
      CHECKPOINT,
      '--count',
      '20',
      '--out',
      out,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const json = parseJsonOutput<{ samples: number; tokens: number; lossTokens: number; out: string }>(r);
    const samples = readSftSamples(out);
    expect(json).toEqual({
      samples: 20,
      tokens: samples.reduce((n, s) => n + s.ids.length, 0),
      lossTokens: samples.reduce((n, s) => n + s.mask.filter((m) => m === 1).length, 0),
      out,
    });
    expect(new Set(samples.map((s) => s.source))).toEqual(new Set(['copy-drill']));

    const bad = await runT1lab([
      'tasks',
      'sft-drills',
      '--like',
      like,
      '--checkpoint',
      CHECKPOINT,
      '--count',
      'many',
      '--out',
      out,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--count: 'many' is not a positive integer");
    const other = writeLikeSample(CHECKPOINT, join(tmp.path, 'other.jsonl'), { tokenizer: 'b'.repeat(64) });
    const refused = await runT1lab([
      'tasks',
      'sft-drills',
      '--like',
      other,
      '--checkpoint',
      CHECKPOINT,
      '--count',
      '2',
      '--out',
      out,
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/other\.jsonl:1: made for tokenizer bbbbbbbbbbbb/);
    tmp.remove();
  });
});
