/**
 * SFT data through the real harness: oracle episodes of a small suite (bubblewrap sandboxes, pty shells,
 * verifiers) tokenized with a checkpoint through the TITO ledger. Every sample decodes to the ChatML
 * conversation the policy sees (compact prompt, instruction, tool calls, real observations); the loss mask
 * covers exactly the assistant's tokens, each ending with <|im_end|>. From an eval run (the text-level
 * oracle, which keeps no ids) the resolved episodes are retokenized to the same kind of samples.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { startEvaluation } from '../../../electron/lab/runs/evaluate';
import { makeSftData } from '../../../electron/lab/training/sft-data';
import { readSftSamples } from '../../../electron/lab/training/sft-samples';
import { writeSuite } from '../../helpers/tasks';
import { writeTinyCheckpoint } from '../../helpers/tiny-checkpoint';
import { makeTempDir } from '../../helpers/tmp';

describe('tasks sft-data', () => {
  const tmp = makeTempDir('t1lab-sftdata-');
  afterAll(() => tmp.remove());
  // A window that holds the suite's episodes (the tiny default of 256 does not).
  const checkpoint = writeTinyCheckpoint(join(tmp.path, 'tiny'), 1, { max_position_embeddings: 4096 });
  const suite = writeSuite(join(tmp.path, 'suite'));
  const tokenizer = loadTokenizerFile(checkpoint);
  const imEnd = tokenizer.special.imEnd!;

  const checkSamples = (file: string) => {
    const samples = readSftSamples(file);
    for (const s of samples) {
      const text = tokenizer.decode(s.ids);
      expect(text.startsWith('<|im_start|>system\nYou solve a task in a Linux shell')).toBe(true);
      expect(text).toContain('<tool_response>');
      // Masked-in tokens are exactly the sampled segments, each an assistant reply ending with <|im_end|>.
      const sampled = s.segments.filter((g) => g.kind === 'sampled');
      expect(sampled.length).toBe(s.turns);
      const maskOnes = s.mask.reduce<number>((a, b) => a + b, 0);
      expect(maskOnes).toBe(sampled.reduce((n, g) => n + g.length, 0));
      for (const g of sampled) {
        expect(s.mask.slice(g.start, g.start + g.length).every((m) => m === 1)).toBe(true);
        expect(s.ids[g.start + g.length - 1]).toBe(imEnd);
        expect(tokenizer.decode(s.ids.slice(g.start, g.start + g.length - 1))).toMatch(
          /^<tool_call>\n\{"name": ?"(bash|submit)"/,
        );
        expect(text.slice(0, tokenizer.decode(s.ids.slice(0, g.start)).length)).toMatch(/<\|im_start\|>assistant\n$/);
      }
    }
    return samples;
  };

  it('oracle episodes through the harness become exact ledger samples, resolved ones only', async () => {
    const out = join(tmp.path, 'sft.jsonl');
    const result = await makeSftData({ suite, checkpoint, out, concurrency: 2 });
    expect(result).toMatchObject({ out, episodes: 3, resolved: 3, tooLong: 0, ledger: { fork: 0, lossDrift: 0 } });
    const samples = checkSamples(out);
    expect(result.samples).toBe(samples.length);
    expect(result.tokens).toBe(samples.reduce((n, s) => n + s.ids.length, 0));
    expect(samples.every((s) => s.source === 'oracle' && s.resolved && s.reward?.binary === 1)).toBe(true);
    expect(new Set(samples.map((s) => s.task)).size).toBe(3);
  });

  it('--first-turns: without running anything, exactly the first turn the harness samples (prompt and first command)', async () => {
    const harnessOut = join(tmp.path, 'sft-budget.jsonl');
    await makeSftData({ suite, checkpoint, out: harnessOut, concurrency: 2, maxTurns: 6, agentTimeoutSec: 60 });
    const out = join(tmp.path, 'first.jsonl');
    const result = await makeSftData({ suite, checkpoint, out, firstTurns: true, maxTurns: 6, agentTimeoutSec: 60 });
    expect(result).toMatchObject({ episodes: 3, samples: 3, resolved: 0, ledger: { fork: 0, lossDrift: 0 } });
    const first = readSftSamples(out);
    const episodes = readSftSamples(harnessOut).filter((s) => s.id.endsWith('#0'));
    expect(first.map((s) => s.task).sort()).toEqual(episodes.map((s) => s.task).sort());
    for (const s of first) {
      expect(s).toMatchObject({ source: 'oracle-first-turn', resolved: false, reward: null, turns: 1 });
      const sampled = s.segments.filter((g) => g.kind === 'sampled');
      expect(sampled).toHaveLength(1);
      // The same ids as the harness's episode up to the end of its first reply: the prompt states the same
      // budget (6 turns, 1 min) and the reply is the same call.
      const h = episodes.find((e) => e.task === s.task)!;
      const g = h.segments.find((x) => x.kind === 'sampled')!;
      expect(sampled[0]).toEqual(g);
      expect(s.ids.slice(0, g.start + g.length)).toEqual(h.ids.slice(0, g.start + g.length));
      expect(tokenizer.decode(s.ids)).toContain('Limits: 6 turns, 1 min.');
    }
  });

  it('--from-run: resolved episodes of an eval run, retokenized with the checkpoint', async () => {
    const evaluation = await startEvaluation(
      { suite, policy: 'oracle', attempts: 1, concurrency: 2, seed: 1, out: join(tmp.path, 'run') },
      { dataDir: tmp.path },
    );
    await evaluation.done;
    const out = join(tmp.path, 'from-run.jsonl');
    const result = await makeSftData({ checkpoint, out, fromRun: evaluation.runDir });
    expect(result).toMatchObject({ episodes: 3, resolved: 3, ledger: { lossDrift: 0 } });
    const samples = checkSamples(out);
    expect(samples.every((s) => s.source === `run:${evaluation.runId} (retokenized)`)).toBe(true);
  });
});
