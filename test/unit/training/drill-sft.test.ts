import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashFile } from '../../../native/model/checkpoint';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { makeDrillSftSamples } from '../../../electron/lab/training/drill-sft';
import { readSftSamples } from '../../../electron/lab/training/sft-samples';
import { REPO_ROOT } from '../../helpers/cli';
import { LIKE_SYSTEM_PROMPT, writeLikeSample } from '../../helpers/sft-like';

const CHECKPOINT = join(REPO_ROOT, 'models', 'nano-sft');
const tokenizer = loadTokenizerFile(CHECKPOINT);
const sha = hashFile(join(CHECKPOINT, 'tokenizer.json')).sha256;
const SYSTEM = LIKE_SYSTEM_PROMPT;
const tmp = mkdtempSync(join(tmpdir(), 't1lab-drill-sft-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const likeFile = (name: string, over: Record<string, unknown> = {}) =>
  writeLikeSample(CHECKPOINT, join(tmp, name), over);

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('copy drills as SFT samples', () => {
  it('lays each drill out as the harness does: the like-sample system prompt, tool calls trained, outputs not', () => {
    const out = join(tmp, 'drills.jsonl');
    const r = makeDrillSftSamples({ like: likeFile('like.jsonl'), checkpoint: CHECKPOINT, out, count: 12 });
    const samples = readSftSamples(out);
    expect(samples).toHaveLength(12);
    expect(r).toMatchObject({ samples: 12, tokens: samples.reduce((n, s) => n + s.ids.length, 0) });
    expect(r.lossTokens).toBe(samples.reduce((n, s) => n + s.mask.filter((m) => m === 1).length, 0));
    for (const s of samples) {
      expect(s.tokenizer).toBe(sha);
      // Segments tile the ids, and the mask is 1 exactly on the sampled ones.
      let at = 0;
      for (const seg of s.segments) {
        expect(seg.start).toBe(at);
        at += seg.length;
        expect(new Set(s.mask.slice(seg.start, seg.start + seg.length))).toEqual(
          new Set([seg.kind === 'sampled' ? 1 : 0]),
        );
      }
      expect(at).toBe(s.ids.length);
      const [prompt, firstCall] = s.segments.map((seg) =>
        tokenizer.decode(s.ids.slice(seg.start, seg.start + seg.length)),
      );
      expect(prompt!.startsWith(`${SYSTEM}<|im_start|>user\n`)).toBe(true);
      expect(s.segments.at(-1)!.kind).toBe('sampled');
      expect(tokenizer.decode(s.ids.slice(s.segments.at(-1)!.start))).toContain('"name":"submit"');
      // What makes it a copy drill: the first command repeats a name the instruction gave.
      const instruction = prompt!.slice(prompt!.indexOf('<|im_start|>user\n'));
      const command = JSON.parse(firstCall!.slice(firstCall!.indexOf('{'), firstCall!.lastIndexOf('}') + 1)).arguments
        .command as string;
      expect(
        command
          .split(/[\s'"=]+/)
          .filter((w) => w.length >= 6)
          .some((w) => instruction.includes(w)),
      ).toBe(true);
    }
  });

  it('the same seed writes the same bytes; another seed other drills', () => {
    const like = likeFile('like-seed.jsonl');
    const [a, b, c] = ['a', 'b', 'c'].map((n) => join(tmp, `${n}.jsonl`));
    makeDrillSftSamples({ like, checkpoint: CHECKPOINT, out: a!, count: 5 });
    makeDrillSftSamples({ like, checkpoint: CHECKPOINT, out: b!, count: 5 });
    makeDrillSftSamples({ like, checkpoint: CHECKPOINT, out: c!, count: 5, seed: 32 });
    expect(sha256(a!)).toBe(sha256(b!));
    expect(sha256(a!)).not.toBe(sha256(c!));
  });

  it('refuses a like-file of another tokenizer or protocol, naming the file', () => {
    const out = join(tmp, 'refused.jsonl');
    const other = likeFile('other-tokenizer.jsonl', { tokenizer: 'a'.repeat(64) });
    expect(() => makeDrillSftSamples({ like: other, checkpoint: CHECKPOINT, out, count: 1 })).toThrow(
      /other-tokenizer\.jsonl:1: made for tokenizer aaaaaaaaaaaa/,
    );
    const terminus = likeFile('terminus.jsonl', { protocol: 'terminus' });
    expect(() => makeDrillSftSamples({ like: terminus, checkpoint: CHECKPOINT, out, count: 1 })).toThrow(
      /terminus\.jsonl:1: protocol 'terminus'/,
    );
    expect(() => makeDrillSftSamples({ like: terminus, checkpoint: join(tmp, 'nowhere'), out, count: 1 })).toThrow(
      /--checkpoint .*nowhere: .*tokenizer\.json/,
    );
    expect(() => makeDrillSftSamples({ like: likeFile('ok.jsonl'), checkpoint: CHECKPOINT, out, count: 0 })).toThrow(
      /count: 0/,
    );
  });
});
